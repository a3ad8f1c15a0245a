//! The catalogue the prose draws on: the inline values by name (each plain text, escaped when
//! inserted, or the reason the data cannot provide it) and the HTML blocks by name.

use std::collections::BTreeMap;

/// Inline values by name, and the names the data could not provide, with the reason.
#[derive(Debug, Default, Clone)]
pub struct Values {
    /// Each value the prose may insert as `{{name}}`, by name, as plain text (escaped when
    /// inserted).
    pub values: BTreeMap<String, String>,
    /// Each name the data could not provide, with the reason, which the build gives when the
    /// prose uses it.
    pub unavailable: BTreeMap<String, String>,
}

impl Values {
    pub(super) fn put(&mut self, name: impl Into<String>, value: impl ToString) {
        self.values.insert(name.into(), value.to_string());
    }

    /// Puts `t` rendered as the value `name`; a failure names `path`, the template's.
    pub(super) fn text(
        &mut self,
        name: impl Into<String>,
        t: &impl askama::Template,
        path: &str,
    ) -> ratios_base::error::Result<()> {
        // Moved in: `put` would copy the sentence through `ToString`.
        self.values.insert(name.into(), super::template(t, path)?);
        Ok(())
    }

    pub(super) fn missing(&mut self, name: impl Into<String>, why: impl Into<String>) {
        self.unavailable.insert(name.into(), why.into());
    }

    /// Records each of `names` as missing, for the same reason.
    pub(super) fn missing_all<N: Into<String>>(
        &mut self,
        names: impl IntoIterator<Item = N>,
        why: impl Into<String>,
    ) {
        let why = why.into();
        for name in names {
            self.missing(name, why.clone());
        }
    }

    /// The value named `name`, or `None` when the data provide none.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }
}

/// HTML of the block placeholders, by name.
pub type Blocks = BTreeMap<String, String>;
