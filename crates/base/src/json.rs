//! The JSON files the build writes: pretty-printed, ending in a newline.

use serde::Serialize;

use crate::error::{Error, Result};

/// `value` as pretty-printed JSON and a final newline; a failure names `file`.
pub fn pretty(value: &impl Serialize, file: &str) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| Error::Serialise {
        file: file.into(),
        message: format!("cannot serialise: {e}"),
    })?;
    bytes.push(b'\n');
    Ok(bytes)
}
