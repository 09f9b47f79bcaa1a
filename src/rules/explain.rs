//! One differing field explained: its provenance computed, the first rule of
//! the catalogue that agrees with it chosen, and the evidence sentence
//! written from the rule's template.

use super::{Catalog, Finding};
use crate::context::InputContext;
use crate::identity::ResourceKey;
use crate::model::{Cause, Change, Confidence, Presence, WrittenBy};
use crate::path::Seg;
use serde_json::Value;

/// What a differing field is, before it has a cause.
pub struct Facts<'a> {
    /// The resource.
    pub key: &'a ResourceKey,
    /// Which sides hold it.
    pub presence: Presence,
    /// The field's path.
    pub path: &'a [Seg],
    /// Added, removed or changed.
    pub change: Change,
    /// The field's Git value.
    pub git: Option<&'a Value>,
    /// The field's live value.
    pub live: Option<&'a Value>,
    /// The whole Git object.
    pub git_obj: Option<&'a Value>,
    /// The whole live object.
    pub live_obj: Option<&'a Value>,
    /// What the rest of the input tells.
    pub input: &'a InputContext,
    /// Whether the path is known for sure (diff output may leave parents unshown).
    pub certain: bool,
    /// Whether the values are a Secret's, which evidence never quotes.
    pub secret: bool,
    /// Another field of the same object whose change the API server
    /// refuses, so the sync that would apply this one fails (its words).
    pub refused_with: Option<&'a str>,
}

/// The cause of one field, with the rule that gave it and why.
pub struct Explanation {
    /// The rule's code.
    pub rule: String,
    /// Its cause.
    pub cause: Cause,
    /// How sure it is.
    pub confidence: Confidence,
    /// The evidence sentence.
    pub evidence: String,
    /// Git changed since the last sync and the cluster still holds what it applied.
    pub pending_git_change: bool,
    /// Who wrote the live value, when `managedFields` say.
    pub written_by: Option<WrittenBy>,
    /// The input shows a person changed the live value.
    pub by_hand: bool,
    /// The pasted events and log lines that explain the field.
    pub observed: Vec<crate::model::Observation>,
}

/// Shorten a value for an evidence sentence.
fn short(v: Option<&Value>) -> String {
    crate::text::one_line(&crate::text::value_or_absent(v), 60)
}

/// The template variables every evidence sentence and fix may name:
/// `kind`, `name`, `namespace`, `path`, `git`, `live` and, when
/// `managedFields` say, `writer` (the live value's field manager). Evidence
/// and fixes are written from this one list (fixes pass the values as the
/// report holds them, masked).
pub fn template_vars(
    key: &ResourceKey,
    path: &[Seg],
    git: String,
    live: String,
    writer: Option<&str>,
) -> Vec<(String, String)> {
    let mut vars = vec![
        ("kind".into(), key.kind.clone()),
        ("name".into(), key.name.clone()),
        ("namespace".into(), key.namespace.clone()),
        ("path".into(), crate::text::field_words(path)),
        ("git".into(), git),
        ("live".into(), live),
    ];
    if let Some(w) = writer {
        vars.push(("writer".into(), w.to_string()));
    }
    vars
}

/// Explain one field: the first rule that matches and agrees with the
/// field's provenance (the drift fallback when none does).
pub fn explain(catalog: &Catalog, facts: &Facts<'_>) -> Explanation {
    let pointer = crate::path::pointer(facts.path);
    let manager = facts
        .live_obj
        .and_then(|l| crate::managed_fields::owner_of(l, facts.path));
    let finding = Finding {
        key: facts.key,
        path: facts.path,
        pointer: &pointer,
        change: facts.change,
        presence: facts.presence,
        git: facts.git,
        live: facts.live,
        git_obj: facts.git_obj,
        live_obj: facts.live_obj,
        manager: manager.as_deref(),
        input: facts.input,
        refused_with: facts.refused_with,
        provenance: Default::default(),
    };
    let verdict = catalog.classify(&finding);
    let rule = verdict.rule;
    let provenance = finding.provenance();
    let written_by = provenance.writer.as_ref().map(|w| WrittenBy {
        manager: w.field.manager.clone(),
        class: w.class,
        operation: w.field.operation.clone(),
        subresource: w.field.subresource.clone(),
        time: w.field.time.clone(),
    });
    let (git_s, live_s) = if facts.secret {
        ("(secret value)".to_string(), "(secret value)".to_string())
    } else {
        (short(facts.git), short(facts.live))
    };
    let mut vars = template_vars(
        facts.key,
        facts.path,
        git_s,
        live_s,
        written_by.as_ref().map(|w| w.manager.as_str()),
    );
    vars.push((
        "manager".into(),
        manager.clone().unwrap_or_else(|| "unknown".into()),
    ));
    vars.push((
        "manager_note".into(),
        manager
            .as_ref()
            .map(|m| format!(" (field manager `{m}`)"))
            .unwrap_or_default(),
    ));
    vars.extend(verdict.vars);
    let mut confidence = rule.confidence;
    if !facts.certain {
        confidence = match confidence {
            Confidence::High => Confidence::Medium,
            _ => Confidence::Low,
        };
    }
    let mut evidence = crate::text::fill(&rule.evidence, &vars);
    let blind = facts.presence == Presence::Both
        && facts.live_obj.is_some()
        && !provenance.has_managed_fields
        && provenance.last_applied == super::provenance::LastApplied::Unknown
        && !facts.input.partial_objects;
    if rule.cause == Cause::Drift && blind {
        // Nothing in the input says who wrote the live value.
        confidence = Confidence::Low;
        evidence.push_str(BLIND_NOTE);
    }
    let mut explanation = Explanation {
        rule: rule.code.clone(),
        cause: rule.cause,
        confidence,
        evidence,
        pending_git_change: super::predicates::pending_git_change(&finding),
        by_hand: match provenance.writer_class() {
            Some(class) => class == crate::model::ManagerClass::Person,
            None => provenance.last_applied == super::provenance::LastApplied::SameAsGit,
        },
        written_by,
        observed: Vec::new(),
    };
    // What the events and logs say can prove the writer (`rules::observed`).
    super::observed::refine(catalog, &finding, facts.secret, &mut explanation);
    explanation
}

/// What a drift verdict adds when the live object records no writer.
const BLIND_NOTE: &str = " The live object holds neither managedFields nor a last-applied configuration, so the input cannot tell who changed it: paste it as `kubectl get -o yaml --show-managed-fields` prints it.";
