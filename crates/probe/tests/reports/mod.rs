//! The machines' reports, read back as a CI system would: the JSON validated
//! against `report.schema.json`, the JUnit XML parsed.

use serde_json::Value;

/// Fails, naming every violation, when `report` does not follow the JSON schema.
pub fn assert_valid_json(report: &Value) {
    if let Err(e) = validate_json(report) {
        panic!(
            "the JSON report does not follow report.schema.json: {e}\n{}",
            serde_json::to_string_pretty(report).unwrap_or_default()
        );
    }
}

/// Every violation of the JSON schema by `report`, in one message.
pub fn validate_json(report: &Value) -> Result<(), String> {
    let schema: Value = serde_json::from_str(probe::json::SCHEMA)
        .unwrap_or_else(|e| panic!("report.schema.json is not JSON: {e}"));
    let mut compiler = boon::Compiler::new();
    let mut schemas = boon::Schemas::new();
    compiler
        .add_resource("report.schema.json", schema)
        .unwrap_or_else(|e| panic!("report.schema.json cannot be loaded: {e}"));
    let index = compiler
        .compile("report.schema.json", &mut schemas)
        .unwrap_or_else(|e| panic!("report.schema.json is not a valid JSON Schema: {e:#}"));
    schemas
        .validate(report, index)
        .map_err(|e| format!("{e:#}"))
}

/// A test case of a JUnit report: its name, and its result element's name and
/// `type` (`failure`/`fail`, `skipped`, ... or nothing for a pass).
#[derive(Debug, PartialEq, Eq)]
pub struct Case {
    pub name: String,
    pub result: Option<(String, Option<String>)>,
}

/// The suite's counts (`tests`, `failures`, `errors`, `skipped`) and its test cases.
pub fn junit(xml: &str) -> ([usize; 4], Vec<Case>) {
    let doc = roxmltree::Document::parse(xml)
        .unwrap_or_else(|e| panic!("the JUnit report is not well-formed XML: {e}\n{xml}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites", "{xml}");
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), 1, "one suite: {xml}");
    let suite = suites[0];
    let count = |name: &str| -> usize {
        suite
            .attribute(name)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("the suite's {name} is not a number: {xml}"))
    };
    let counts = [
        count("tests"),
        count("failures"),
        count("errors"),
        count("skipped"),
    ];
    let cases = suite
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|case| Case {
            name: case.attribute("name").unwrap_or_default().to_owned(),
            result: case
                .children()
                .find(|n| ["failure", "error", "skipped"].contains(&n.tag_name().name()))
                .map(|n| {
                    (
                        n.tag_name().name().to_owned(),
                        n.attribute("type").map(str::to_owned),
                    )
                }),
        })
        .collect();
    (counts, cases)
}
