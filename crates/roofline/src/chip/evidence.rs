//! How strong the evidence for a preset figure is ([`Tier`]) and what [`super::Chip::evidence`]
//! returns for one field ([`Evidence`]).

use serde::{Deserialize, Serialize};

id_enum! {
    /// The kind of source a preset figure comes from, strongest first.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub enum Tier {
        /// The reference text the app follows: the JAX scaling book ("How to Scale Your Model").
        ReferenceText = "reference_text",
        /// The vendor's datasheet or product specification page.
        VendorDatasheet = "vendor_datasheet",
        /// The vendor's other documentation: architecture whitepaper, technical blog, docs
        /// site, conference talk.
        VendorDocs = "vendor_docs",
        /// A third party: press, a measurement, a library's constant, a vendor table read only
        /// in someone else's copy.
        ThirdParty = "third_party",
    }
}

impl Tier {
    /// A human label (`vendor datasheet`).
    pub fn label(self) -> &'static str {
        match self {
            Tier::ReferenceText => "reference text (the scaling book)",
            Tier::VendorDatasheet => "vendor datasheet",
            Tier::VendorDocs => "vendor documentation",
            Tier::ThirdParty => "third-party report",
        }
    }
}

/// The evidence for one preset figure: its tier, its source note (quoting the figure with
/// its unit) and, where sources disagree, the range they span with who states what.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence {
    /// The kind of source.
    pub tier: Tier,
    /// The source note (as [`super::Chip::source`] gives it).
    pub source: &'static str,
    /// `(lowest, highest, "the other sources and their values")` when sources disagree.
    pub range: Option<(f64, f64, &'static str)>,
}
