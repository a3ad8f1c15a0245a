//! The reproducibility bundle: [`package`] (provenance, the citation, RO-Crate, the zip, its
//! README and inventory), [`vendoring`] (the crates it carries), [`verify`] (the reader's
//! check of a published folder or a bundle) and [`signature`] (SHA256SUMS signed with the
//! author's key). It depends on `ratios-base` and `ratios-model`.

pub mod package;
pub mod signature;
pub mod vendoring;
pub mod verify;
