//! Reading the JSON the build and the importer's worker write for the page (the validation
//! view's data, a parsed profile): each member by name, every message naming the text it reads
//! (`the validation data has no "rows"`, `the imported profile's "time" is not a number`).
//! Over the core's [`Value`]; the writer is [`crate::json`].

use roofline::inputs::json::Value;

/// What a text is, for its messages: `Doc("the validation data")`.
#[derive(Debug, Clone, Copy)]
pub struct Doc(pub &'static str);

impl Doc {
    /// Member `k` of `v`, which must be there.
    pub fn field<'a>(self, v: &'a Value, k: &str) -> Result<&'a Value, String> {
        v.get(k).ok_or_else(|| format!("{} has no \"{k}\"", self.0))
    }

    /// Text member `k`, which must be there.
    pub fn text(self, v: &Value, k: &str) -> Result<String, String> {
        self.field(v, k)?
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| self.not(k, "text"))
    }

    /// Text member `k`, or `None` where it is missing or `null`.
    pub fn opt_text(self, v: &Value, k: &str) -> Result<Option<String>, String> {
        match v.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => self.text(v, k).map(Some),
        }
    }

    /// List member `k`, which must be there.
    pub fn list<'a>(self, v: &'a Value, k: &str) -> Result<&'a [Value], String> {
        self.field(v, k)?
            .as_array()
            .ok_or_else(|| self.not(k, "a list"))
    }

    /// Number member `k`, which must be there: `None` for `null`.
    pub fn number(self, v: &Value, k: &str) -> Result<Option<f64>, String> {
        match self.field(v, k)? {
            Value::Null => Ok(None),
            n => n.as_f64().map(Some).ok_or_else(|| self.not(k, "a number")),
        }
    }

    /// Number member `k`, or `None` where it is missing or `null`.
    pub fn opt_number(self, v: &Value, k: &str) -> Result<Option<f64>, String> {
        match v.get(k) {
            None => Ok(None),
            Some(_) => self.number(v, k),
        }
    }

    fn not(self, k: &str, what: &str) -> String {
        format!("{}'s \"{k}\" is not {what}", self.0)
    }
}
