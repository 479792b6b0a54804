//! The Share dialog's embed code as the learner builds it: a size (one of [`EMBED_SIZES`] or a
//! custom one typed by hand), the parts shown, the `<iframe>` snippet they make and the preview's
//! scale.

use crate::query::{embed_src, Part};
use crate::share::{embed_code, embed_size, ShareState, EMBED_SIZES};

/// Width the preview is scaled down to, px (the dialog's).
pub const PREVIEW_WIDTH: f64 = 300.0;

/// The embed code's choices.
#[derive(Clone, Debug, PartialEq)]
pub struct EmbedForm {
    /// The index into [`EMBED_SIZES`], or `EMBED_SIZES.len()` for a custom size.
    pub size: usize,
    /// A custom size as typed: width, height.
    pub custom: (String, String),
    pub parts: Vec<Part>,
    /// The code is the `<llm-lab>` element's (else a plain `<iframe>`).
    pub element: bool,
}

impl Default for EmbedForm {
    fn default() -> Self {
        EmbedForm { size: 0, custom: ("720".into(), "450".into()), parts: Part::EMBED_DEFAULT.to_vec(), element: false }
    }
}

impl EmbedForm {
    /// The size option the drop-down's value `value` names (the first for a value it cannot read).
    pub fn choose_size(&mut self, value: &str) {
        self.size = value.parse().unwrap_or(0);
    }

    pub fn is_custom(&self) -> bool {
        self.size >= EMBED_SIZES.len()
    }

    /// Shows or hides a part.
    pub fn show_part(&mut self, part: Part, on: bool) {
        self.parts.retain(|p| *p != part);
        if on {
            self.parts.push(part);
        }
    }

    /// The chosen size, or why the custom one cannot be used.
    pub fn chosen(&self) -> Result<(u32, u32), String> {
        match EMBED_SIZES.get(self.size) {
            Some(wh) => Ok(*wh),
            None => embed_size(&self.custom.0, &self.custom.1),
        }
    }

    /// The address the frame opens: the lab at `base` in `state`, the chosen parts shown.
    pub fn src(&self, base: &str, state: &ShareState) -> String {
        embed_src(base, state, &self.parts)
    }

    /// The snippet — the `<llm-lab>` element (its height the chosen one; its width follows the
    /// page) or an `<iframe>` — empty while the size cannot be used.
    pub fn code(&self, base: &str, state: &ShareState) -> String {
        let code = |wh: (u32, u32)| match self.element {
            true => element_code(base, state, &self.parts, wh.1),
            false => embed_code(&self.src(base, state), wh),
        };
        self.chosen().map(code).unwrap_or_default()
    }
}

/// The `<llm-lab>` snippet for the lab at `base` (its page's address, without query) in `state`:
/// the element's script, which sits beside the page, and the element with the state, the parts
/// shown (`view`, when not the embed's default) and the most the frame grows to (`height`).
pub fn element_code(base: &str, state: &ShareState, parts: &[Part], height: u32) -> String {
    let folder = base.rsplit_once('/').map_or(base, |(folder, _)| folder);
    let view = crate::query::view_value(parts).map(|v| format!(" view=\"{v}\"")).unwrap_or_default();
    format!(
        "<script src=\"{folder}/llm-lab.js\" defer></script>\n<llm-lab lab=\"{}\"{view} height=\"{height}\"></llm-lab>",
        state.encode()
    )
}

/// The label key of a part's checkbox.
pub fn part_key(p: Part) -> &'static str {
    match p {
        Part::Stage => "features.embed.part.stage",
        Part::Metrics => "features.embed.part.metrics",
        Part::Hbm => "features.embed.part.hbm",
        Part::Charts => "features.embed.part.charts",
        Part::Controls => "features.embed.part.controls",
    }
}

/// The preview of a `w` × `h` frame: its scale (to fit the dialog, never enlarged) and the box it
/// takes, px.
pub fn preview_box((w, h): (u32, u32)) -> (f64, f64, f64) {
    let scale = (PREVIEW_WIDTH / w as f64).min(1.0);
    (scale, (w as f64 * scale).round(), (h as f64 * scale).round())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> ShareState {
        ShareState::new(sim_core::presets::find(sim_core::presets::DEFAULT_PRESET).expect("preset").scenario())
    }

    #[test]
    fn a_listed_size_or_a_custom_one_that_fits_its_range() {
        let mut f = EmbedForm::default();
        assert_eq!(f.chosen(), Ok(EMBED_SIZES[0]));
        f.choose_size("1");
        assert_eq!(f.chosen(), Ok(EMBED_SIZES[1]));
        f.choose_size(&EMBED_SIZES.len().to_string());
        assert!(f.is_custom());
        assert_eq!(f.chosen(), Ok((720, 450)));
        f.custom.0 = "10".into();
        assert!(f.chosen().is_err());
        assert_eq!(f.code("https://x.org/", &state()), "");
        f.choose_size("nonsense");
        assert_eq!(f.size, 0);
    }

    #[test]
    fn parts_toggle_and_the_code_names_the_frame() {
        let mut f = EmbedForm::default();
        f.show_part(Part::Charts, true);
        f.show_part(Part::Charts, true);
        assert_eq!(f.parts.iter().filter(|p| **p == Part::Charts).count(), 1);
        f.show_part(Part::Stage, false);
        assert!(!f.parts.contains(&Part::Stage));
        let s = state();
        let code = f.code("https://x.org/", &s);
        assert!(code.starts_with("<iframe src=\"https://x.org/?embed=1&amp;view="), "{code}");
        assert!(code.contains("width=\"640\" height=\"400\""));
        assert_eq!(f.src("https://x.org/", &s), embed_src("https://x.org/", &s, &f.parts));
        f.element = true;
        let code = f.code("https://x.org/", &s);
        assert!(code.starts_with("<script src=\"https://x.org/llm-lab.js\" defer></script>\n<llm-lab lab="), "{code}");
        assert!(code.ends_with(" height=\"400\"></llm-lab>"), "{code}");
    }

    #[test]
    fn the_element_code_names_the_script_beside_the_page_and_the_state() {
        let s = ShareState::new(sim_core::presets::find("static-batching").unwrap().scenario());
        let code = element_code("https://x.org/lab/", &s, &Part::EMBED_DEFAULT, 500);
        assert_eq!(
            code,
            format!("<script src=\"https://x.org/lab/llm-lab.js\" defer></script>\n<llm-lab lab=\"{}\" height=\"500\"></llm-lab>", s.encode())
        );
        let code = element_code("https://x.org/lab/index.html", &s, &[Part::Stage, Part::Controls], 400);
        assert!(code.starts_with("<script src=\"https://x.org/lab/llm-lab.js\""), "{code}");
        assert!(code.contains(" view=\"stage,controls\" height=\"400\""), "{code}");
        // the state reads back
        let lab = code.split("lab=\"").nth(1).unwrap().split('"').next().unwrap();
        assert_eq!(ShareState::decode(lab).unwrap(), s);
    }

    #[test]
    fn the_preview_shrinks_to_the_dialog_and_never_grows() {
        assert_eq!(preview_box((600, 400)), (0.5, 300.0, 200.0));
        assert_eq!(preview_box((200, 100)), (1.0, 200.0, 100.0));
        assert!(Part::ALL.iter().all(|p| part_key(*p).starts_with("features.embed.part.")));
    }
}
