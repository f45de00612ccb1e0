#[test]
fn tok() {
    let text = std::fs::read_to_string(std::env::var("TOKIN").unwrap()).unwrap();
    let options = brush_parser::ParserOptions::default();
    let r = brush_parser::uncached_tokenize_str(&text, &options.tokenizer_options());
    println!("RESULT {:?}", r.map(|t| t.len()).map_err(|e| e.to_string()));
}
