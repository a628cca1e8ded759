//! `op_kinds!`: the one declaration of the operation kinds (see the table in `op/mod.rs`).

/// Generates, from one line per kind (`Variant(Type) = "id", "form label", FAMILY;`), the
/// [`OpKind`](super::OpKind) enum (serialised with an `op` tag holding the id), its ids
/// (`IDS`), the catalogue for forms (`KINDS`), `kind_id`, `default_for` (with the
/// unknown-kind error listing every id) and the dispatch to each kind's `OpBehavior`.
macro_rules! op_kinds {
    ($($(#[$doc:meta])* $var:ident($ty:ty) = $id:literal, $label:literal, $family:ident;)+) => {
        /// What an operation computes. Serialised with an `op` tag, the kind id:
        /// `{"op":"matmul","b":1,...}`.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "op")]
        // The `llm` variant (its ~35 fields, 280 bytes) is the largest: a scenario holds a
        // handful of ops and the sweeps clone them a few times per edit, so the size costs
        // nothing measurable, where a box would put an allocation in every clone of an op.
        #[allow(clippy::large_enum_variant)]
        pub enum OpKind {
            $($(#[$doc])* #[serde(rename = $id)] $var($ty)),+
        }

        impl OpKind {
            /// All kind ids, in table order.
            pub const IDS: [&'static str; [$($id),+].len()] = [$($id),+];

            /// The kind table for forms: id, label and family of every kind, in table order.
            pub const KINDS: &'static [KindInfo] = &[$(KindInfo {
                id: $id,
                label: $label,
                family: $family,
            }),+];

            /// The kind id: `matmul`, `bmm`, `dot`, `elementwise`, `custom`, `llm`, `model`.
            pub fn kind_id(&self) -> &'static str {
                match self {
                    $(OpKind::$var(_) => $id),+
                }
            }

            /// The default operation of a kind (matmul: B=1, D=F=4096, bf16 everywhere, 1
            /// shard; dot: N=4096 bf16; llm: Llama-3 8B decode, B=1, ctx 2048, bf16, tp 1;
            /// model: ResNet-50, B=1, bf16; ...). Errors on an unknown id.
            pub fn default_for(kind_id: &str) -> Result<OpKind, Error> {
                match kind_id.trim() {
                    $($id => Ok(OpKind::$var(<$ty>::default())),)+
                    other => Err(Error::UnknownKind {
                        kind: other.to_string(),
                        expected: OpKind::IDS.join(", "),
                    }),
                }
            }

            /// The kind's behaviour.
            pub(crate) fn behavior(&self) -> &dyn OpBehavior {
                match self {
                    $(OpKind::$var(o) => o),+
                }
            }

            fn behavior_mut(&mut self) -> &mut dyn OpBehavior {
                match self {
                    $(OpKind::$var(o) => o),+
                }
            }
        }

        $(impl From<$ty> for OpKind {
            fn from(o: $ty) -> OpKind {
                OpKind::$var(o)
            }
        })+
    };
}
