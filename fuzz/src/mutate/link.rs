//! Share-link mutations: the JSON inside (re-encoded), or the encoding itself.

use super::{mutate_json_text, mutate_text, pick, FuzzRng, Pool};
use crate::input::{encode_link, link_json};
use rand::Rng;

/// Mutates a share link: mostly the JSON inside (re-encoded), else the encoding itself.
pub fn mutate_link(rng: &mut FuzzRng, pool: &Pool, link: &str) -> String {
    if rng.random_range(0..3) != 0 {
        if let Some(json) = link_json(link) {
            let prefix = link.split_once('.').map_or("1", |(v, _)| v);
            let body = encode_link(&mutate_json_text(rng, pool, &json));
            return format!("{prefix}{}", &body[1..]);
        }
    }
    let mut s = link.to_string();
    match rng.random_range(0..10) {
        0 => {
            let v = *pick(rng, &["0", "2", "9", "-1", "", "01", "1 ", "99999999999999999999", "1.1"]);
            let body = s.split_once('.').map_or(s.clone(), |(_, b)| b.to_string());
            s = format!("{v}.{body}");
        }
        1 => s = s.replacen('.', "", 1),
        2 | 3 => {
            if !s.is_empty() {
                let i = rng.random_range(0..s.len());
                if s.is_char_boundary(i) && s.is_char_boundary(i + 1) {
                    let c: &[&str] = &["+", "/", "=", "!", " ", "%", "A", "_", "-", "é"];
                    s.replace_range(i..i + 1, pick::<&str>(rng, c));
                }
            }
        }
        4 => {
            let tail: &[&str] = &["=", "==", "===", "A", "AA", "&locale=zh", "%3D"];
            s.push_str(pick::<&str>(rng, tail));
        }
        5 => {
            let cut = rng.random_range(0..s.len().max(1));
            if s.is_char_boundary(cut) {
                s.truncate(cut);
            }
        }
        6 => s = s.replace('-', "+").replace('_', "/"),
        7 => {
            // valid base64 of bytes that are not UTF-8 or not JSON
            let junk: &[&[u8]] = &[b"\xff\xfe{}", b"not json", b"{\"scenario\":", b"[]", b"null", b"\"x\""];
            let v = *pick(rng, &["1", "2"]);
            s = format!("{v}.{}", base64_url(pick::<&[u8]>(rng, junk)));
        }
        8 => s = s.to_uppercase(),
        _ => {
            let state = link_json(&s).unwrap_or_default();
            let prefix = s.split_once('.').map_or("1", |(v, _)| v).to_string();
            let body = encode_link(&mutate_text(rng, pool, &state));
            s = format!("{prefix}{}", &body[1..]);
        }
    }
    s
}

fn base64_url(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}
