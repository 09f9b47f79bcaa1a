//! The knowledge base of causes: rules as data (`catalog.yaml`), each with a
//! stable code, a match, a confidence, an evidence template, its fixes, its
//! docs and its own examples. Logic that data cannot express is a named
//! predicate (see `predicates.rs`).

#![warn(missing_docs)]

pub mod checks;
pub mod docs;
pub mod explain;
pub mod managers;
pub mod observed;
pub mod predicates;
pub mod provenance;
pub mod second_render;

use crate::compare::CompareOptions;
use crate::context::InputContext;
use crate::identity::ResourceKey;
use crate::input::InputError;
use crate::model::{Cause, Change, Confidence, Presence};
use crate::path::{glob, PathPattern, Seg};
use crate::text::value_text;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// `catalog.yaml` as JSON, one rule per line (see `build.rs`).
#[cfg(not(all(target_arch = "wasm32", feature = "web")))]
const CATALOG: &str = include_str!(concat!(env!("OUT_DIR"), "/catalog.json"));
/// The page's worker analyses without the rules' docs and examples, which
/// only the Rules tab shows: they are [`RULE_TEXTS`], shipped beside the
/// worker and loaded when the tab asks (`web::engine::rule_docs`).
#[cfg(all(target_arch = "wasm32", feature = "web"))]
const CATALOG: &str = include_str!(concat!(env!("OUT_DIR"), "/catalog-lean.json"));

/// Each rule's code, docs and examples as JSON ([`RuleText`]), one rule per
/// line: what the page's build ships for its worker's Rules tab.
pub const RULE_TEXTS: &str = include_str!(concat!(env!("OUT_DIR"), "/rule-texts.json"));

/// What a rule says to people: its docs and examples, apart from the rest
/// (see [`RULE_TEXTS`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleText {
    /// The rule's code.
    pub code: String,
    /// Its documentation.
    pub docs: Docs,
    /// Its examples.
    #[serde(default)]
    pub examples: Vec<Example>,
}

/// One rule of the catalogue: when it applies and what it says.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// The stable code, starting with the cause's prefix (`AS001`).
    pub code: String,
    /// One line naming what the rule recognises.
    pub title: String,
    /// The cause it gives.
    pub cause: Cause,
    /// Retired rules keep their code so old reports stay explainable.
    #[serde(default)]
    pub retired: Option<String>,
    /// Which differences it applies to.
    #[serde(default, rename = "match")]
    pub matcher: Matcher,
    /// How sure its verdict is (medium unless the catalogue says).
    #[serde(default = "default_confidence")]
    pub confidence: Confidence,
    /// The evidence sentence, with `{vars}` filled per difference.
    pub evidence: String,
    /// The difference it explains makes the API server refuse the whole
    /// apply of the object (an immutable field): the object's other
    /// differences then stay too, whatever they are.
    #[serde(default)]
    pub refuses_sync: bool,
    /// A drift rule whose value no person is shown to have changed (Argo
    /// CD's own apply, its masks, its tracking annotation): the emergency
    /// steps never warn that a forced sync overwrites a hand edit for it.
    #[serde(default)]
    pub not_a_hand_edit: bool,
    /// The rule that explains what no other rule does (drift of medium
    /// confidence); the catalogue has exactly one, which matches anything.
    #[serde(default)]
    pub fallback: bool,
    /// The fixes it proposes.
    #[serde(default)]
    pub fix: FixTemplate,
    /// Its documentation (empty in the page's worker, see [`CATALOG`]).
    #[serde(default)]
    pub docs: Docs,
    /// Inputs it must explain, run as tests.
    #[serde(default)]
    pub examples: Vec<Example>,
    /// Compiled value patterns, filled at load.
    #[serde(skip)]
    compiled: Compiled,
}

fn default_confidence() -> Confidence {
    Confidence::Medium
}

/// When a rule applies: every condition given must hold.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Matcher {
    /// `group/Kind` patterns (`*` globs; core group empty: `/Service`).
    #[serde(default)]
    pub kinds: Vec<String>,
    /// Pointer patterns ([`PathPattern`]): `*` one segment, `**` any number,
    /// globs inside a segment.
    #[serde(default)]
    pub paths: Vec<String>,
    /// The kinds of change it applies to (any when empty).
    #[serde(default)]
    pub changes: Vec<Change>,
    /// The resource presences it applies to (when empty: resources on both
    /// sides only).
    #[serde(default)]
    pub presence: Vec<Presence>,
    /// Regex on the Git / live value (strings as they are, anything else as JSON).
    #[serde(default)]
    pub git: Option<String>,
    /// See `git`.
    #[serde(default)]
    pub live: Option<String>,
    /// Regex on the resource's name.
    #[serde(default)]
    pub name: Option<String>,
    /// Regex on the field manager that owns the field live (managedFields).
    #[serde(default)]
    pub manager: Option<String>,
    /// Named predicates that must all hold / must all fail.
    #[serde(default)]
    pub when: Vec<String>,
    /// See `when`.
    #[serde(default)]
    pub unless: Vec<String>,
}

#[derive(Debug, Clone, Default)]
struct Compiled {
    git: Option<regex_lite::Regex>,
    live: Option<regex_lite::Regex>,
    name: Option<regex_lite::Regex>,
    manager: Option<regex_lite::Regex>,
    paths: Vec<PathPattern>,
    git_not_for: Vec<PathPattern>,
}

/// The fixes a rule proposes, by kind.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixTemplate {
    /// An `ignoreDifferences` rule.
    #[serde(default)]
    pub ignore: Option<IgnoreTemplate>,
    /// A change to the manifests in Git (Markdown sentence, may hold {vars}).
    #[serde(default)]
    pub git: Option<String>,
    /// What the Git fix changes at each difference's path, when it is a
    /// change to the manifests (advice such as "nothing to change" has none):
    /// the fix is verified by making that change and comparing again.
    #[serde(default)]
    pub git_change: Option<crate::model::GitChange>,
    /// Pointer patterns where a `write-live` Git fix is not offered: values
    /// a webhook writes per cluster or per pod, which hard-code the
    /// injector's internals in Git (the ignore fix or the injector's own
    /// configuration is the fix there).
    #[serde(default)]
    pub git_not_for: Vec<String>,
    /// Waves, hooks or sync options: a sentence and an optional YAML snippet.
    #[serde(default)]
    pub sync_order: Option<String>,
    /// The YAML snippet of `sync_order`.
    #[serde(default)]
    pub sync_order_snippet: Option<String>,
    /// Make rendering deterministic.
    #[serde(default)]
    pub render: Option<String>,
}

/// How to build an ignore fix.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IgnoreTemplate {
    /// `self` (the difference's own path), `parent`, or a pointer pattern to
    /// ignore instead (`*` segments become every list item).
    #[serde(default = "default_ignore_path")]
    pub path: String,
    /// Field managers to trust instead of a path, when the live object shows them.
    #[serde(default)]
    pub managers: Vec<String>,
    /// Whether a sync would otherwise revert the owner's value.
    #[serde(default)]
    pub respect: bool,
}

fn default_ignore_path() -> String {
    "self".into()
}

/// A rule's documentation, one paragraph per question.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Docs {
    /// What it means.
    pub meaning: String,
    /// Who changes the field.
    pub who: String,
    /// Why the Application loops.
    #[serde(rename = "loop")]
    pub why_loops: String,
    /// How to fix it in Git.
    pub git_fix: String,
    /// How to ignore it safely.
    pub ignore: String,
    /// What the ignore could hide.
    pub risk: String,
}

impl Docs {
    /// The sections with the headings every shell shows them under.
    pub fn sections(&self) -> [(&'static str, &str); 6] {
        [
            ("What it means", self.meaning.as_str()),
            ("Who changes it", self.who.as_str()),
            ("Why it loops", self.why_loops.as_str()),
            ("How to fix it in Git", self.git_fix.as_str()),
            ("How to ignore it safely", self.ignore.as_str()),
            ("What the ignore could hide", self.risk.as_str()),
        ]
    }
}

/// An input a rule must explain: the Git and live sides, and which
/// difference it gives the rule's cause.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    /// The Application's destination namespace, if any.
    #[serde(default)]
    pub namespace: Option<String>,
    /// Argo CD settings the example is compared with: an Application and/or
    /// the argocd-cm ConfigMap as YAML (`resource.compareoptions`,
    /// `ignoreDifferences`), read by [`crate::settings::apply_user_settings`].
    #[serde(default)]
    pub settings: Option<String>,
    /// A second render of the same commit, if the rule needs one.
    #[serde(default)]
    pub git_again: Option<String>,
    /// The Git side (empty for an example read from diff output).
    #[serde(default)]
    pub git: String,
    /// The live side (empty for an example read from diff output).
    #[serde(default)]
    pub live: String,
    /// Diff output the example is read from instead of two sides, for a
    /// rule about what diff output leaves unknown.
    #[serde(default)]
    pub diff: Option<String>,
    /// The resource id and pointer this rule must explain.
    pub id: String,
    /// See `id`.
    pub pointer: String,
}

impl Example {
    /// The compare options this example runs with: `base` with the
    /// example's Argo CD settings applied, as `--app`/`--argocd-cm` would.
    pub fn compare_options(&self, base: CompareOptions) -> Result<CompareOptions, InputError> {
        let mut compare = base;
        if let Some(settings) = &self.settings {
            crate::settings::apply_user_settings(settings, &mut compare)?;
        }
        Ok(compare)
    }
}

/// The parsed catalogue, indexed by kind.
pub struct Catalog {
    /// Every rule, retired ones included, in catalogue order.
    pub rules: Vec<Rule>,
    by_kind: BTreeMap<String, Vec<usize>>,
    wildcard: Vec<usize>,
    drift_fallback: usize,
    /// The embedded catalogue's checks, read when first asked for (see
    /// [`Catalog::checks`]); a catalogue read from text has none.
    checks: Option<OnceLock<Vec<checks::Check>>>,
}

static CATALOG_CELL: OnceLock<Catalog> = OnceLock::new();

/// The embedded catalogue, parsed once.
pub fn catalog() -> &'static Catalog {
    CATALOG_CELL.get_or_init(|| {
        // The catalogue is part of the binary, not input: every test loads
        // it, so a broken one never ships.
        Catalog::parse(CATALOG)
            .map(|c| Catalog {
                checks: Some(OnceLock::new()),
                ..c
            })
            .unwrap_or_else(|e| panic!("the embedded rule catalogue is invalid: {e}"))
    })
}

fn compile(
    pattern: &Option<String>,
    code: &str,
    what: &str,
) -> Result<Option<regex_lite::Regex>, String> {
    pattern
        .as_ref()
        .map(|p| {
            regex_lite::Regex::new(p).map_err(|e| format!("rule {code}: bad {what} pattern: {e}"))
        })
        .transpose()
}

impl Catalog {
    /// Parse and check a catalogue in the JSON `build.rs` writes: patterns
    /// compile, predicates exist, codes carry their cause's prefix, one rule
    /// is the fallback.
    pub fn parse(text: &str) -> Result<Catalog, String> {
        let mut rules: Vec<Rule> = serde_json::from_str(text).map_err(|e| {
            // Line 1 is the opening bracket; rule n (from 1) is on line n + 1.
            format!(
                "rule catalogue, rule {} of catalog.yaml: {e}",
                e.line().saturating_sub(1)
            )
        })?;
        let mut by_kind: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let mut wildcard = Vec::new();
        let mut drift_fallback = None;
        for (i, rule) in rules.iter_mut().enumerate() {
            let m = &rule.matcher;
            rule.compiled = Compiled {
                git: compile(&m.git, &rule.code, "git")?,
                live: compile(&m.live, &rule.code, "live")?,
                name: compile(&m.name, &rule.code, "name")?,
                manager: compile(&m.manager, &rule.code, "manager")?,
                paths: m.paths.iter().map(|p| PathPattern::parse(p)).collect(),
                git_not_for: rule
                    .fix
                    .git_not_for
                    .iter()
                    .map(|p| PathPattern::parse(p))
                    .collect(),
            };
            for p in m.when.iter().chain(&m.unless) {
                if !predicates::exists(p) {
                    return Err(format!("rule {}: unknown predicate `{p}`", rule.code));
                }
            }
            if !rule.code.starts_with(rule.cause.code_prefix()) {
                return Err(format!(
                    "rule {}: a {} rule's code starts with {}",
                    rule.code,
                    rule.cause.id(),
                    rule.cause.code_prefix()
                ));
            }
            if let Some(i) = rule.examples.iter().position(|ex| {
                ex.diff.is_some() != (ex.git.is_empty() && ex.live.is_empty())
                    || ex.diff.is_none() && (ex.git.is_empty() || ex.live.is_empty())
            }) {
                return Err(format!(
                    "rule {} example {i}: give either `git` and `live`, or `diff`",
                    rule.code
                ));
            }
            if rule.retired.is_some() {
                continue;
            }
            if rule.fallback {
                if drift_fallback.replace(i).is_some() {
                    return Err(format!(
                        "rule {}: a second fallback rule (the catalogue has one)",
                        rule.code
                    ));
                }
                continue;
            }
            if m.kinds.is_empty() || m.kinds.iter().any(|k| k.contains('*')) {
                wildcard.push(i);
            }
            for k in &m.kinds {
                if !k.contains('*') {
                    by_kind.entry(k.clone()).or_default().push(i);
                }
            }
        }
        let drift_fallback = drift_fallback.ok_or("rule catalogue: no rule is the `fallback`")?;
        Ok(Catalog {
            rules,
            by_kind,
            wildcard,
            drift_fallback,
            checks: None,
        })
    }

    /// The checks of `drift-doctor check` (`checks.yaml`), in order. They are
    /// read the first time they are asked for: an analysis never asks, so
    /// the page's lean worker carries neither them nor their reader.
    pub fn checks(&self) -> &[checks::Check] {
        let Some(cell) = &self.checks else {
            return &[];
        };
        cell.get_or_init(|| {
            checks::parse(checks::CHECKS, &self.rules)
                .unwrap_or_else(|e| panic!("the embedded checks are invalid: {e}"))
        })
    }

    /// The rule with this code.
    pub fn get(&self, code: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.code == code)
    }

    /// The check with this code.
    pub fn check(&self, code: &str) -> Option<&checks::Check> {
        self.checks().iter().find(|c| c.code == code)
    }

    /// The first rule, in catalogue order, that explains this difference.
    pub fn classify(&self, f: &Finding<'_>) -> Verdict<'_> {
        let gk = format!("{}/{}", f.key.group, f.key.kind);
        let mut candidates: Vec<usize> = self.by_kind.get(&gk).cloned().unwrap_or_default();
        candidates.extend(self.wildcard.iter().copied());
        crate::sorting::sort(&mut candidates);
        candidates.dedup();
        for i in candidates {
            let rule = &self.rules[i];
            if !f.provenance().admits(rule.cause) {
                continue;
            }
            if let Some(vars) = rule.matches(f, &gk) {
                return Verdict { rule, vars };
            }
        }
        Verdict {
            rule: &self.rules[self.drift_fallback],
            vars: Vec::new(),
        }
    }
}

/// Everything a rule may look at for one difference.
pub struct Finding<'a> {
    /// The resource.
    pub key: &'a ResourceKey,
    /// The field's path.
    pub path: &'a [Seg],
    /// The same path as a JSON pointer.
    pub pointer: &'a str,
    /// Added, removed or changed.
    pub change: Change,
    /// Which sides hold the resource.
    pub presence: Presence,
    /// The field's Git value, if any.
    pub git: Option<&'a Value>,
    /// The field's live value, if any.
    pub live: Option<&'a Value>,
    /// The whole Git object, if any.
    pub git_obj: Option<&'a Value>,
    /// The whole live object, if any.
    pub live_obj: Option<&'a Value>,
    /// The field manager that owns the field live, if managedFields say.
    pub manager: Option<&'a str>,
    /// What the rest of the input tells.
    pub input: &'a InputContext,
    /// Another field of this object whose change the API server refuses
    /// (see [`Rule::refuses_sync`]), when the first pass found one.
    pub refused_with: Option<&'a str>,
    /// Who wrote the field, computed on first use ([`Finding::provenance`]).
    pub provenance: std::cell::OnceCell<provenance::Provenance>,
}

impl Finding<'_> {
    /// The facts of the input about who wrote this field.
    pub fn provenance(&self) -> &provenance::Provenance {
        self.provenance
            .get_or_init(|| provenance::Provenance::of(self))
    }
}

/// The rule that explains a difference.
pub struct Verdict<'a> {
    /// The rule.
    pub rule: &'a Rule,
    /// Evidence variables from predicates.
    pub vars: Vec<(String, String)>,
}

impl Rule {
    /// Whether the rule's Git fix may copy the live value at this path into
    /// Git (not where `git_not_for` names a per-cluster or per-pod value).
    pub fn git_fix_fits(&self, path: &[Seg]) -> bool {
        let tokens = crate::path::tokens(path);
        !self.compiled.git_not_for.iter().any(|p| p.matches(&tokens))
    }

    fn matches(&self, f: &Finding<'_>, gk: &str) -> Option<Vec<(String, String)>> {
        let m = &self.matcher;
        if !m.kinds.is_empty() && !m.kinds.iter().any(|k| glob(k, gk)) {
            return None;
        }
        if !m.changes.is_empty() && !m.changes.contains(&f.change) {
            return None;
        }
        let presence_ok = if m.presence.is_empty() {
            f.presence == Presence::Both
        } else {
            m.presence.contains(&f.presence)
        };
        if !presence_ok {
            return None;
        }
        if !self.compiled.paths.is_empty() {
            let tokens = crate::path::tokens(f.path);
            if !self.compiled.paths.iter().any(|p| p.matches(&tokens)) {
                return None;
            }
        }
        let value_ok = |re: &Option<regex_lite::Regex>, v: Option<&Value>| match re {
            None => true,
            Some(re) => v.is_some_and(|v| re.is_match(&value_text(v))),
        };
        if !value_ok(&self.compiled.git, f.git) || !value_ok(&self.compiled.live, f.live) {
            return None;
        }
        if let Some(re) = &self.compiled.name {
            if !re.is_match(&f.key.name) {
                return None;
            }
        }
        if let Some(re) = &self.compiled.manager {
            if !f.manager.is_some_and(|mgr| re.is_match(mgr)) {
                return None;
            }
        }
        let mut vars = Vec::new();
        for p in &m.when {
            vars.extend(predicates::eval(p, f)?);
        }
        for p in &m.unless {
            if predicates::eval(p, f).is_some() {
                return None;
            }
        }
        Some(vars)
    }
}
