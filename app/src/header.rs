//! The page header (skip links, title, tagline, language switch, projector profile, the
//! definitions switch) and footer.
//!
//! The header also keeps the document in step with the language (`<html lang>`, the title) and
//! redraws the canvases when the language or the colour profile changes.

use leptos::prelude::*;

use crate::a11y::SkipLinks;
use crate::defs::DefsToggle;
use crate::i18n::{self, tx, Locale};
use crate::theme;
use crate::ui::{use_ui, Ui};

#[component]
pub fn PageHeader() -> impl IntoView {
    let ui = use_ui();
    let locale = i18n::use_lang();
    let projector = theme::use_theme();

    // at once (the panic view reads it), then whenever the language changes
    set_document_language(locale.get_untracked());
    Effect::new(move |prev: Option<()>| {
        let l = locale.get();
        set_document_language(l);
        if prev.is_some() {
            redraw(ui);
        }
    });
    Effect::new(move |prev: Option<()>| {
        projector.projector();
        if prev.is_some() {
            redraw(ui);
        }
    });

    let locale_button = move |l: Locale, text: &'static str, name: &'static str| {
        view! {
            <button
                class="chip"
                class:active=move || locale.get() == l
                aria-pressed=move || (locale.get() == l).to_string()
                lang=l.html_lang()
                aria-label=name
                data-testid=format!("locale-{}", l.code())
                on:click=move |_| locale.switch(l)
            >{text}</button>
        }
    };

    view! {
        <SkipLinks/>
        <header class="top">
            <div class="brand">
                <h1>{tx("app.title")}</h1>
                <p class="tagline">{tx("app.tagline")}</p>
            </div>
            <div class="top-tools">
                <div class="seg" role="group" aria-label=tx("app.language")>
                    {locale_button(Locale::En, "EN", "English")}
                    {locale_button(Locale::Zh, "中文", "中文")}
                </div>
                <button
                    class="chip"
                    class:active=move || projector.projector()
                    aria-pressed=move || projector.projector().to_string()
                    title=tx("app.projector_title")
                    data-testid="projector"
                    on:click=move |_| projector.set(!projector.projector_untracked())
                >{tx("app.projector")}</button>
                <DefsToggle/>
            </div>
        </header>
    }
}

/// `<html lang>` and the document's title.
fn set_document_language(l: Locale) {
    if let Some(doc) = window().document() {
        if let Some(root) = doc.document_element() {
            let _ = root.set_attribute("lang", l.html_lang());
        }
        doc.set_title(&i18n::lookup(l, "app.title"));
    }
}

/// Canvases draw their words and colours when drawn: draw everything again now.
fn redraw(ui: Ui) {
    ui.engine.with(|e| e.touch());
    ui.refresh(true);
}

#[component]
pub fn PageFooter() -> impl IntoView {
    view! {
        <footer class="foot small muted">
            {tx("app.footer")}
        </footer>
    }
}
