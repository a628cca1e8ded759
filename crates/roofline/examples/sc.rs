fn main() {
    for q in std::env::args().skip(1) {
        let s = roofline::url::decode(&q);
        println!("{:?}", s.notices);
        let s = s.scenario;
        for op in &s.ops {
            for chip in &s.chips {
                match roofline::analysis::analyze(op, chip, &s.options) {
                    Ok(a) => {
                        println!(
                            "t_lower {} bound {:?} critical {:?}",
                            a.t_lower, a.bound, a.critical
                        );
                        if let Some(t) = &a.train {
                            for c in &t.critical {
                                println!(
                                    "  crit {:?} {:?} exact {:?} book {:?} rule {} sec {}",
                                    c.resource, c.regime, c.exact, c.book, c.book_rule, c.section
                                );
                            }
                            println!("  tokens/chip {} chips {}", t.tokens_per_chip, t.chips);
                        }
                        for p in &a.parts {
                            println!(
                                "  {} x{} t {} bound {:?} I {}",
                                p.name, p.repeat, p.t_lower, p.bound, p.intensity
                            );
                        }
                    }
                    Err(e) => println!("err {e}"),
                }
            }
        }
    }
}
