//! The page's first report. A first visit shows the default example, and its
//! report is the worker's own answer for that input, made natively when the
//! page is built (`drift-doctor-first-report`) and carried in a `<meta>` of
//! `index.html`:
//! the page shows it without waiting for the worker's wasm, which is most of
//! what the page downloads. The worker still analyses the example once it
//! runs, and its answer (the same report) replaces this one. The rules'
//! titles come along, which the cards name and which otherwise also come
//! from the worker.

use super::protocol::{Input, ReportWindow, Request, Response, RuleDoc};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use bincode::Options as _;
use serde::{Deserialize, Serialize};

/// What the page carries: the worker's answer, and the rules with their
/// code, title, cause and confidence only (the rules view waits for the
/// worker's whole catalogue).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Carried {
    answer: Response,
    rule_titles: Vec<RuleDoc>,
}

/// The first report as the page reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct FirstReport {
    pub window: ReportWindow,
    pub rule_titles: Vec<RuleDoc>,
}

/// The name of the `<meta>` of `index.html` whose content is the report.
pub const META_NAME: &str = "drift-doctor-first-report";

/// What a first visit analyses: the default example, every option at its default.
pub fn input() -> Option<Input> {
    super::examples::find(super::examples::DEFAULT).map(|ex| Input::sides(ex.git, ex.live))
}

/// The report, as base64 of the worker's message (bincode, as gloo's codec
/// encodes it) and the rules' titles.
pub fn build() -> Result<String, String> {
    let input = input().ok_or("the default example is not embedded")?;
    let response = super::engine::Engine::default().handle(Request::Analyze {
        seq: 0,
        input,
        timed_out: Vec::new(),
    });
    if let Response::Analyzed {
        outcome: Err(e), ..
    } = &response
    {
        return Err(format!("the default example does not analyse: {}", e.text));
    }
    let rule_titles = super::engine::rule_docs(false)?
        .into_iter()
        .map(|rule| RuleDoc {
            kinds: Vec::new(),
            sections: Vec::new(),
            examples: Vec::new(),
            ..rule
        })
        .collect();
    let carried = Carried {
        answer: response,
        rule_titles,
    };
    let bytes = bincode::serialize(&carried).map_err(|e| e.to_string())?;
    Ok(STANDARD.encode(bytes))
}

/// The report `text` (from [`build`]) carries, or None when it carries none.
pub fn read(text: &str) -> Option<FirstReport> {
    let bytes = STANDARD.decode(text.trim()).ok()?;
    // `bincode::deserialize`'s format, bounded by the text's own length.
    let format = bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .allow_trailing_bytes()
        .with_limit(bytes.len() as u64);
    let carried = format.deserialize::<Carried>(&bytes).ok()?;
    match carried.answer {
        Response::Analyzed {
            outcome: Ok(window),
            ..
        } => Some(FirstReport {
            window,
            rule_titles: carried.rule_titles,
        }),
        _ => None,
    }
}
