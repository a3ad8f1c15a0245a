//! Rendering a compiled Askama template: a failure is one error naming the template.

use askama::Template;

use crate::error::{Error, Result};

/// `t` rendered; a failure names `name`, the template's path.
pub fn render<T: Template>(t: &T, name: &str) -> Result<String> {
    t.render().map_err(|e| Error::Template {
        template: name.into(),
        message: format!("template failed: {e}"),
    })
}
