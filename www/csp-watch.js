// Keeps every Content-Security-Policy violation of this page, so that tests
// (and anyone in the console) can read them back: window.__cspViolations.
"use strict";
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__cspViolations.push({
    directive: e.effectiveDirective || e.violatedDirective,
    blocked: String(e.blockedURI || ""),
    source: String(e.sourceFile || "") + ":" + e.lineNumber,
    sample: String(e.sample || "")
  });
});
