//! `id_enum!`: enums of unit variants named by string ids (dtypes, peak keys, chip fields).

/// An enum of unit variants, each with a string id: the enum (with the attributes given, each
/// variant serialised as its id), `ALL` (every variant, in order; `$n` of them), `as_str` (the
/// id) and `Display` (the id). The docs of `ALL` and `as_str` are given too.
macro_rules! id_enum {
    (
        $(#[$m:meta])*
        pub enum $name:ident {
            $($(#[$vm:meta])* $var:ident = $id:literal),+ $(,)?
        }
        $(#[$all_doc:meta])* ALL: [_; $n:literal];
        $(#[$str_doc:meta])* as_str;
    ) => {
        $(#[$m])*
        pub enum $name {
            $($(#[$vm])* #[serde(rename = $id)] $var),+
        }

        impl $name {
            $(#[$all_doc])*
            pub const ALL: [$name; $n] = [$($name::$var),+];

            $(#[$str_doc])*
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$var => $id),+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
