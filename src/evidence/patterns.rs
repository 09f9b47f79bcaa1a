//! The catalogue of what tools say (`patterns.yaml`): each entry a stable
//! `EV` code, the event reasons and message format a tool emits, the fields
//! it explains and the cause it proves.

use super::{Origin, Said};
use crate::model::Cause;
use crate::path::PathPattern;
use regex_lite::Regex;
use serde::Deserialize;
use std::sync::OnceLock;

/// How a line leads to the resource it explains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// The event's object, or the object a log line's fields name.
    #[serde(rename = "self")]
    Own,
    /// The object the message names.
    Named,
    /// The target of the autoscaler the event is about.
    Scaler,
    /// The Secret of the Certificate the event is about.
    Certificate,
    /// The Deployment of the ReplicaSet the event is about (or the object itself).
    Owner,
    /// The Application: the loop, never a field.
    Application,
    /// A log line naming the object and the field's whole path.
    Field,
}

/// Which texts an entry reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reads {
    /// Events only.
    Event,
    /// Log lines only.
    Log,
    /// Both.
    Any,
}

/// One entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pattern {
    /// `EV` and three digits.
    pub code: String,
    /// What it recognises.
    pub title: String,
    /// Events, logs or both.
    pub origin: Reads,
    /// Event reasons (any when empty).
    #[serde(default)]
    pub reasons: Vec<String>,
    /// A regex on the message.
    #[serde(default)]
    pub message: Option<String>,
    /// How the line leads to the resource.
    pub target: Target,
    /// The fields it explains.
    #[serde(default)]
    pub paths: Vec<String>,
    /// The cause it proves.
    #[serde(default)]
    pub cause: Option<Cause>,
    /// The catalogue rule whose fixes apply when the cause comes from it.
    #[serde(default)]
    pub rule: Option<String>,
    /// Who writes, in words.
    pub writer: String,
    /// The evidence sentence, with `{vars}`.
    #[serde(default)]
    pub evidence: String,
    #[serde(skip)]
    regex: Option<Regex>,
    #[serde(skip)]
    compiled_paths: Vec<PathPattern>,
}

impl Pattern {
    /// Whether it explains the field at these path tokens.
    pub fn explains(&self, tokens: &[String]) -> bool {
        self.compiled_paths.iter().any(|p| p.matches(tokens))
    }

    /// Whether the entry recognises the start of a sync.
    pub fn code_starts_sync(&self) -> bool {
        self.message
            .as_deref()
            .is_some_and(|m| m.contains("Initiated automated sync"))
    }

    /// The variables of `said` when this entry recognises it.
    pub fn recognise(&self, said: &Said) -> Option<Vec<(String, String)>> {
        let origin_ok = match self.origin {
            Reads::Any => true,
            Reads::Event => said.origin == Origin::Event,
            Reads::Log => said.origin == Origin::Log,
        };
        if !origin_ok || (!self.reasons.is_empty() && !self.reasons.contains(&said.reason)) {
            return None;
        }
        let mut vars = vec![(
            "message".to_string(),
            crate::text::one_line(&said.message, 200),
        )];
        if let Some(re) = &self.regex {
            let c = re.captures(&said.message)?;
            for name in re.capture_names().flatten() {
                if let Some(m) = c.name(name) {
                    vars.push((name.to_string(), crate::text::one_line(m.as_str(), 120)));
                }
            }
        }
        Some(vars)
    }
}

/// The catalogue, or why it does not load.
pub fn patterns() -> Result<&'static [Pattern], String> {
    static CELL: OnceLock<Result<Vec<Pattern>, String>> = OnceLock::new();
    CELL.get_or_init(|| {
        let mut list: Vec<Pattern> = serde_yaml::from_str(include_str!("patterns.yaml"))
            .map_err(|e| format!("evidence patterns.yaml: {e}"))?;
        for p in &mut list {
            if let Some(src) = &p.message {
                p.regex = Some(
                    Regex::new(src)
                        .map_err(|e| format!("evidence patterns.yaml {}: {e}", p.code))?,
                );
            }
            p.compiled_paths = p.paths.iter().map(|s| PathPattern::parse(s)).collect();
        }
        Ok(list)
    })
    .as_ref()
    .map(Vec::as_slice)
    .map_err(Clone::clone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_loads_with_unique_codes() {
        let list = patterns().expect("patterns.yaml loads");
        let mut codes = std::collections::BTreeSet::new();
        for p in list {
            assert!(codes.insert(p.code.as_str()), "{} twice", p.code);
            assert!(p.code.starts_with("EV"), "{}", p.code);
            assert_eq!(
                p.cause.is_some(),
                p.rule.is_some(),
                "{}: a cause needs a rule",
                p.code
            );
            assert!(
                p.target == Target::Application || !p.paths.is_empty() || p.evidence.is_empty(),
                "{}",
                p.code
            );
        }
    }
}
