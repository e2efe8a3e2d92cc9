//! The canonical form against vectors V8 produced (scripts/golden.mjs).

use repeat_tool_guard_core::canonicalize_json;

#[test]
fn canonical_form_matches_v8_golden_vectors() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../__test__/golden/canonical.json"
    );
    let text = std::fs::read_to_string(path).expect("golden vectors are committed");
    let vectors: Vec<serde_json::Value> = serde_json::from_str(&text).expect("golden file is JSON");
    assert!(vectors.len() > 400);
    for vector in &vectors {
        let input = vector["input"].as_str().expect("input text");
        let expected = vector["canonical"].as_str().expect("canonical text");
        assert_eq!(
            canonicalize_json(input).as_deref(),
            Ok(expected),
            "input {input}"
        );
    }
}
