//! Names the field of a malformed JSON document without tracking paths while deserializing.
//!
//! Documents are deserialized with plain `serde_json`; only when that fails, [`path_at`] walks the
//! text up to the error's line and column, keeping the stack of object keys and array indices,
//! and gives the path in the form the lab's messages use (`scheduler.max_num_seqs`,
//! `classes[0].arrival`, `.` for the whole document, `?` for a key that could not be read).

use serde::de::DeserializeOwned;

/// Deserializes `text` (trailing text after the document is not read); on failure returns the
/// path of the field at fault with serde_json's error.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, (String, serde_json::Error)> {
    parse::<T>(text).map_err(|e| {
        let scan = scan(text, e.line(), e.column(), e.is_syntax() || e.is_eof(), is_duplicate(&e));
        let path = match scan.closed {
            // An error raised after a container closed belongs to the container itself (a
            // missing field) or to its last member when that member's value was buffered
            // (untagged and internally tagged enums report after their parent's end). A mark
            // before the closer tells them apart: only the container's own error moves.
            Some((closer, Some(last))) => {
                let marked = format!("{}#{}", &text[..closer], &text[closer..]);
                match parse::<T>(&marked) {
                    Err(again) if bare(&again) == bare(&e) => join(&scan.path, Some(&last)),
                    _ => join(&scan.path, None),
                }
            }
            _ => join(&scan.path, None),
        };
        (path, e)
    })
}

/// One copy of the deserializer per type, however many times it is called.
#[inline(never)]
fn parse<T: DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    T::deserialize(&mut serde_json::Deserializer::from_str(text))
}

/// serde_json's message without its " at line L column C".
pub fn bare(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&suffix) {
        Some(s) if e.line() > 0 => s.to_string(),
        _ => text,
    }
}

/// The path at `line`/`column` (serde_json's 1-based line, byte column) of `text`, for an error of
/// the value there (`syntax` false: a wrong type or value, an unknown or missing field) or a
/// syntax error (`syntax` true: the text is not JSON there).
pub fn path_at(text: &str, line: usize, column: usize, syntax: bool) -> String {
    join(&scan(text, line, column, syntax, false).path, None)
}

/// Errors raised on reading a key that are the object's, not the key's: a key given twice, an
/// enum's unknown variant written as `{"variant": ...}`.
fn is_duplicate(e: &serde_json::Error) -> bool {
    let m = e.to_string();
    m.starts_with("duplicate field") || m.starts_with("unknown variant")
}

#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Index(usize),
    Unknown,
}

fn join(path: &[Seg], last: Option<&Seg>) -> String {
    if path.is_empty() && last.is_none() {
        return ".".into();
    }
    let mut out = String::new();
    for (k, s) in path.iter().chain(last).enumerate() {
        match s {
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
            Seg::Key(key) => {
                if k > 0 {
                    out.push('.');
                }
                out.push_str(key);
            }
            Seg::Unknown => out.push_str(if k > 0 { ".?" } else { "?" }),
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum St {
    /// After `{`, `[`, or a comma: a key (object) or an element (array) is next.
    Next,
    /// Inside a key string.
    InKey,
    /// After a key string, before its colon.
    AfterKey,
    /// After a key's colon, before its value.
    AfterColon,
    /// Inside a scalar value.
    InValue,
    /// After a value.
    AfterValue,
}

struct Frame {
    array: bool,
    st: St,
    /// The member being read: the key of an object's member, the index of an array's element.
    key: Option<String>,
    index: usize,
    /// No member has started yet (right after the opener).
    fresh: bool,
    /// The last member's segment, once one has started.
    last: Option<Seg>,
}

impl Frame {
    fn new(array: bool) -> Frame {
        Frame { array, st: St::Next, key: None, index: 0, fresh: true, last: None }
    }
    /// The segment of the member being read.
    fn member(&self) -> Seg {
        if self.array {
            Seg::Index(self.index)
        } else {
            self.key.clone().map_or(Seg::Unknown, Seg::Key)
        }
    }
}

struct Scan {
    path: Vec<Seg>,
    /// When the error came right after a container closed: where its closer is and its last
    /// member's segment, if it had one.
    closed: Option<(usize, Option<Seg>)>,
}

/// Walks `text` up to serde_json's position and says whose the error is.
fn scan(text: &str, line: usize, column: usize, syntax: bool, duplicate: bool) -> Scan {
    let b = text.as_bytes();
    // serde_json's column counts the bytes of the line before its position.
    let mut start = 0;
    for _ in 1..line {
        start = b[start..].iter().position(|&c| c == b'\n').map_or(b.len(), |i| start + i + 1);
    }
    let end = (start + column).min(b.len());

    // frames[0] is the document itself: a holder of one value, with no segment of its own.
    let mut frames = vec![Frame::new(true)];
    let mut closed: Option<(usize, Option<Seg>)> = None;
    let mut in_string = false;
    let mut escaped = false;
    let mut key_start = 0;
    let mut scalar_start = 0;
    let mut stopped = false;
    let mut i = 0;
    while i < end {
        let c = b[i];
        let n = frames.len();
        let top = &mut frames[n - 1];
        if in_string {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_string = false;
                if top.st == St::InKey {
                    top.key = Some(unescape(&text[key_start..i]));
                    top.last = Some(top.member());
                    top.st = St::AfterKey;
                } else {
                    top.st = St::AfterValue;
                }
            }
            i += 1;
            continue;
        }
        if top.st == St::InValue {
            // A number or `true`/`false`/`null`: serde_json fails inside it where it stops being one.
            let s = &b[scalar_start..i];
            let literal = s[0].is_ascii_alphabetic();
            let goes_on = if literal {
                LITERALS.iter().any(|l| l.len() > s.len() && l.starts_with(s) && l[s.len()] == c)
            } else {
                let (last, exp) = (s[s.len() - 1], s.iter().any(|&x| x == b'e' || x == b'E'));
                match c {
                    b'0'..=b'9' => true,
                    b'.' => last.is_ascii_digit() && !exp && !s.contains(&b'.'),
                    b'e' | b'E' => last.is_ascii_digit() && !exp,
                    b'+' | b'-' => last == b'e' || last == b'E',
                    _ => false,
                }
            };
            if goes_on {
                i += 1;
                continue;
            }
            if !whole(s) {
                stopped = true;
                break;
            }
            top.st = St::AfterValue;
        }
        if matches!(c, b' ' | b'\n' | b'\t' | b'\r') {
            i += 1;
            continue;
        }
        closed = None;
        let value_next = if top.array { top.st == St::Next } else { top.st == St::AfterColon };
        let root = n == 1;
        match c {
            b'"' if value_next => {
                begin_value(top);
                top.st = St::InValue;
                in_string = true;
            }
            b'"' if !top.array && top.st == St::Next => {
                top.fresh = false;
                top.key = None;
                top.st = St::InKey;
                key_start = i + 1;
                in_string = true;
            }
            b'{' | b'[' if value_next => {
                begin_value(top);
                top.st = St::AfterValue;
                frames.push(Frame::new(c == b'['));
            }
            b':' if top.st == St::AfterKey => top.st = St::AfterColon,
            b',' if top.st == St::AfterValue && !root => {
                top.st = St::Next;
                top.fresh = false;
                if top.array {
                    top.index += 1;
                }
            }
            b'}' | b']'
                if !root
                    && (c == b']') == top.array
                    && (top.st == St::AfterValue || (top.st == St::Next && top.fresh)) =>
            {
                let done = frames.pop().expect("not the document");
                closed = Some((i, done.last));
            }
            _ if value_next && (c.is_ascii_alphanumeric() || c == b'-') => {
                begin_value(top);
                top.st = St::InValue;
                scalar_start = i;
            }
            _ => {
                stopped = true;
                break;
            }
        }
        i += 1;
    }

    let n = frames.len();
    let top = &mut frames[n - 1];
    // A number or literal that the end of the text cut short of nothing: serde_json read it whole.
    if !stopped && !in_string && top.st == St::InValue && syntax && i >= b.len() && whole(&b[scalar_start..i]) {
        top.st = St::AfterValue;
    }
    let top = &frames[n - 1];
    let mut path: Vec<Seg> = frames[1..n.max(2) - 1].iter().map(Frame::member).collect();
    if n > 1 {
        let own = if syntax {
            match (top.array, top.st) {
                // `{}` where an enum is expected: serde_json misses its variant at the `}`.
                _ if closed.as_ref().is_some_and(|(at, last)| last.is_none() && at + 1 == end && b[*at] == b'}') => {
                    Some(top.member())
                }
                (false, St::Next | St::InKey | St::AfterValue) => Some(Seg::Unknown),
                (false, St::AfterKey) => None,
                (false, _) => Some(top.member()),
                // After `[` or a comma, a character that starts no value is that element's; the
                // end of the text, or `]` after a comma, is the array's.
                (true, St::Next) => (stopped && (b[i] != b']' || top.fresh)).then(|| top.member()),
                (true, St::InValue) => Some(top.member()),
                (true, _) => None,
            }
        } else {
            match top.st {
                St::Next if top.fresh && !top.array => None,
                St::AfterKey if duplicate => None,
                _ => Some(top.member()),
            }
        };
        path.extend(own);
    }
    Scan { path, closed: if syntax { None } else { closed } }
}

const LITERALS: [&[u8]; 3] = [b"true", b"false", b"null"];

/// Whether a number's or literal's text is complete.
fn whole(s: &[u8]) -> bool {
    LITERALS.contains(&s) || (!s[0].is_ascii_alphabetic() && s.last().is_some_and(u8::is_ascii_digit))
}

fn begin_value(top: &mut Frame) {
    top.fresh = false;
    if top.array {
        top.last = Some(top.member());
    }
}

/// A key's text with the common JSON escapes resolved.
fn unescape(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_string();
    }
    let mut out = String::new();
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                out.extend(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32));
            }
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}
