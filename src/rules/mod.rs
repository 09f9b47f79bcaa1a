//! The knowledge base of causes: rules as data (`catalog.yaml`), each with a
//! stable code, a match, a confidence, an evidence template, its fixes, its
//! docs and its own example. Logic that data cannot express is a named
//! predicate (see `predicates.rs`).

pub mod docs;
pub mod predicates;

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

const CATALOG: &str = include_str!("catalog.yaml");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub code: String,
    pub title: String,
    pub cause: Cause,
    /// Retired rules keep their code so old reports stay explainable.
    #[serde(default)]
    pub retired: Option<String>,
    #[serde(default, rename = "match")]
    pub matcher: Matcher,
    #[serde(default = "default_confidence")]
    pub confidence: Confidence,
    pub evidence: String,
    #[serde(default)]
    pub fix: FixTemplate,
    pub docs: Docs,
    #[serde(default)]
    pub examples: Vec<Example>,
    /// Compiled value patterns, filled at load.
    #[serde(skip)]
    compiled: Compiled,
}

fn default_confidence() -> Confidence {
    Confidence::Medium
}

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
    #[serde(default)]
    pub changes: Vec<Change>,
    #[serde(default)]
    pub presence: Vec<Presence>,
    /// Regex on the Git / live value (strings as they are, anything else as JSON).
    #[serde(default)]
    pub git: Option<String>,
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
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixTemplate {
    #[serde(default)]
    pub ignore: Option<IgnoreTemplate>,
    /// A change to the manifests in Git (Markdown sentence, may hold {vars}).
    #[serde(default)]
    pub git: Option<String>,
    /// Waves, hooks or sync options: a sentence and an optional YAML snippet.
    #[serde(default)]
    pub sync_order: Option<String>,
    #[serde(default)]
    pub sync_order_snippet: Option<String>,
    /// Make rendering deterministic.
    #[serde(default)]
    pub render: Option<String>,
}

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

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Docs {
    pub meaning: String,
    pub who: String,
    #[serde(rename = "loop")]
    pub why_loops: String,
    pub git_fix: String,
    pub ignore: String,
    pub risk: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    #[serde(default)]
    pub namespace: Option<String>,
    /// Argo CD settings the example is compared with: an Application and/or
    /// the argocd-cm ConfigMap as YAML (`resource.compareoptions`,
    /// `ignoreDifferences`), read by [`crate::ignore::apply_user_settings`].
    #[serde(default)]
    pub settings: Option<String>,
    pub git: String,
    pub live: String,
    /// The resource id and pointer this rule must explain.
    pub id: String,
    pub pointer: String,
}

impl Example {
    /// The compare options this example runs with: `base` with the
    /// example's Argo CD settings applied, as `--app`/`--argocd-cm` would.
    pub fn compare_options(&self, base: CompareOptions) -> Result<CompareOptions, InputError> {
        let mut compare = base;
        if let Some(settings) = &self.settings {
            crate::ignore::apply_user_settings(settings, &mut compare)?;
        }
        Ok(compare)
    }
}

pub struct Catalog {
    pub rules: Vec<Rule>,
    by_kind: BTreeMap<String, Vec<usize>>,
    wildcard: Vec<usize>,
    drift_fallback: usize,
}

static CATALOG_CELL: OnceLock<Result<Catalog, String>> = OnceLock::new();

/// The embedded catalogue, parsed once. `tests/rules.rs` loads it, so a
/// catalogue that fails to load fails the tests; at run time the failure is
/// reported (every difference is then unexplained drift) rather than a panic.
pub fn catalog() -> Result<&'static Catalog, &'static str> {
    CATALOG_CELL
        .get_or_init(|| Catalog::parse(CATALOG))
        .as_ref()
        .map_err(String::as_str)
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
    pub fn parse(text: &str) -> Result<Catalog, String> {
        let mut rules: Vec<Rule> =
            serde_yaml::from_str(text).map_err(|e| format!("rule catalogue: {e}"))?;
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
            if rule.retired.is_some() {
                continue;
            }
            if rule.code == "DR000" {
                drift_fallback = Some(i);
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
        let drift_fallback =
            drift_fallback.ok_or("rule catalogue: the DR000 fallback rule is missing")?;
        Ok(Catalog {
            rules,
            by_kind,
            wildcard,
            drift_fallback,
        })
    }

    pub fn get(&self, code: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.code == code)
    }

    /// The first rule, in catalogue order, that explains this difference.
    pub fn classify(&self, f: &Finding<'_>) -> Verdict<'_> {
        let gk = format!("{}/{}", f.key.group, f.key.kind);
        let mut candidates: Vec<usize> = self.by_kind.get(&gk).cloned().unwrap_or_default();
        candidates.extend(self.wildcard.iter().copied());
        candidates.sort_unstable();
        candidates.dedup();
        for i in candidates {
            let rule = &self.rules[i];
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
    pub key: &'a ResourceKey,
    pub path: &'a [Seg],
    pub pointer: &'a str,
    pub change: Change,
    pub presence: Presence,
    pub git: Option<&'a Value>,
    pub live: Option<&'a Value>,
    pub git_obj: Option<&'a Value>,
    pub live_obj: Option<&'a Value>,
    pub manager: Option<&'a str>,
    pub input: &'a InputContext,
}

pub struct Verdict<'a> {
    pub rule: &'a Rule,
    /// Evidence variables from predicates.
    pub vars: Vec<(String, String)>,
}

impl Rule {
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
