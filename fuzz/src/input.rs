//! One fuzz input and its file form (findings are saved as files and replayed from them).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

/// The trace file name trace inputs' scenarios read; the fuzzer serves the CSV under it.
pub const TRACE_PATH: &str = "fuzz.csv";

/// Separates the scenario from the CSV in a saved trace input.
const CSV_MARK: &str = "\n----- fuzz.csv -----\n";

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Scenario JSON, as a file, a preset or the editor hands it over.
    Scenario(String),
    /// The value of a share link's `lab=` parameter (`1.<base64url JSON>` or the short `2.…`).
    Share(String),
    /// A scenario and the CSV served as `fuzz.csv` to its trace classes.
    Trace { scenario: String, csv: String },
}

impl Input {
    pub fn kind(&self) -> &'static str {
        match self {
            Input::Scenario(_) => "scenario",
            Input::Share(_) => "link",
            Input::Trace { .. } => "trace",
        }
    }

    /// The file name ending that says the kind when saved.
    pub fn extension(&self) -> &'static str {
        match self {
            Input::Scenario(_) => "scenario.json",
            Input::Share(_) => "link.txt",
            Input::Trace { .. } => "trace.txt",
        }
    }

    pub fn to_file_text(&self) -> String {
        match self {
            Input::Scenario(s) | Input::Share(s) => s.clone(),
            Input::Trace { scenario, csv } => format!("{scenario}{CSV_MARK}{csv}"),
        }
    }

    /// Reads a saved input; the file name's ending gives the kind.
    pub fn from_file(name: &str, text: &str) -> Result<Input, String> {
        if name.ends_with(".scenario.json") {
            Ok(Input::Scenario(text.to_string()))
        } else if name.ends_with(".link.txt") {
            Ok(Input::Share(text.trim_end_matches(['\n', '\r']).to_string()))
        } else if name.ends_with(".trace.txt") {
            let (scenario, csv) =
                text.split_once(CSV_MARK).ok_or_else(|| format!("{name}: no line \"{}\"", CSV_MARK.trim()))?;
            Ok(Input::Trace { scenario: scenario.to_string(), csv: csv.to_string() })
        } else {
            Err(format!("{name}: the name must end in .scenario.json, .link.txt or .trace.txt"))
        }
    }

    /// Size in bytes (reported with findings).
    pub fn len(&self) -> usize {
        match self {
            Input::Scenario(s) | Input::Share(s) => s.len(),
            Input::Trace { scenario, csv } => scenario.len() + csv.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A share link's value for a state JSON: `1.<base64url>`.
pub fn encode_link(state_json: &str) -> String {
    format!("1.{}", URL_SAFE_NO_PAD.encode(state_json.as_bytes()))
}

/// The state JSON inside a well-formed link, if it has one.
pub fn link_json(link: &str) -> Option<String> {
    let (_, body) = link.split_once('.')?;
    String::from_utf8(URL_SAFE_NO_PAD.decode(body).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_inputs_read_back() {
        for input in [
            Input::Scenario("{\"version\": 1}".into()),
            Input::Share("1.e30".into()),
            Input::Trace { scenario: "{}".into(), csv: "arrival_s,input_len,output_len\n0,1,1\n".into() },
        ] {
            let name = format!("x.{}", input.extension());
            assert_eq!(Input::from_file(&name, &input.to_file_text()).unwrap(), input);
        }
        assert!(Input::from_file("x.txt", "").is_err());
        assert_eq!(link_json(&encode_link("{\"a\":1}")).as_deref(), Some("{\"a\":1}"));
    }
}
