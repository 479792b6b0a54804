//! Indents compact JSON the way `serde_json::to_string_pretty` writes it (two spaces, `": "`,
//! `[]` and `{}` when empty), so each type is serialised by one serializer in the wasm instead of
//! a compact and a pretty one (docs/wasm-size.md). `tests/pretty.rs` checks the output is byte
//! for byte `to_string_pretty`'s.

use serde::Serialize;

/// `serde_json::to_string_pretty(value)`, through the compact serializer.
pub fn to_string_pretty<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    serde_json::to_string(value).map(|compact| indent(&compact))
}

/// Indents JSON written by `serde_json::to_string`.
pub fn indent(compact: &str) -> String {
    let b = compact.as_bytes();
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                out.push_str(&compact[start..i]);
                continue;
            }
            b'{' | b'[' => {
                let close = if c == b'{' { b'}' } else { b']' };
                out.push(c as char);
                if b.get(i + 1) == Some(&close) {
                    out.push(close as char);
                    i += 2;
                    continue;
                }
                depth += 1;
                newline(&mut out, depth);
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c as char);
            }
            b',' => {
                out.push(',');
                newline(&mut out, depth);
            }
            b':' => out.push_str(": "),
            _ => out.push(c as char),
        }
        i += 1;
    }
    out
}
