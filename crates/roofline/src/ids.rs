//! `id_enum!`: the one way to declare an enum of unit variants named by string ids (dtypes,
//! peak keys, chip fields, and the choices of operation fields such as `split` or `phase`).

/// An enum of unit variants, each with a string id. Generates the enum (with the attributes
/// given; each variant serialised as its id), `ALL` (every variant, in order), `IDS` (every
/// id, in order: the choices of a form field), `as_str` (the id), `from_id` (the variant of
/// an id, trimmed, ASCII case-insensitive) and `Display` (the id).
macro_rules! id_enum {
    (
        $(#[$m:meta])*
        pub enum $name:ident {
            $($(#[$vm:meta])* $var:ident = $id:literal),+ $(,)?
        }
    ) => {
        $(#[$m])*
        pub enum $name {
            $($(#[$vm])* #[serde(rename = $id)] $var),+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: [$name; [$($id),+].len()] = [$($name::$var),+];

            /// Every id, in declaration order.
            pub const IDS: &'static [&'static str] = &[$($id),+];

            /// The id.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$var => $id),+
                }
            }

            /// The variant with this id (surrounding whitespace ignored, ASCII
            /// case-insensitive), or `None`.
            pub fn from_id(text: &str) -> Option<$name> {
                let t = text.trim();
                $name::ALL.into_iter().find(|v| v.as_str().eq_ignore_ascii_case(t))
            }
        }

        impl $crate::ids::IdEnum for $name {
            fn from_id(text: &str) -> Option<$name> {
                $name::from_id(text)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

/// What `op_fields!` needs of a choice field's enum (implemented by `id_enum!`).
pub(crate) trait IdEnum: Sized {
    /// The variant with this id, or `None`.
    fn from_id(text: &str) -> Option<Self>;
}
