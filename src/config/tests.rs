use super::*;

/// The message of validate() after applying `assignments` to the defaults.
fn invalid(assignments: &[&str]) -> ConfigError {
    let mut cfg = Config::default();
    for a in assignments {
        cfg.set(a).unwrap();
    }
    cfg.validate().expect_err("expected a validation error")
}

fn msg(assignments: &[&str]) -> String {
    invalid(assignments).to_string()
}

fn valid(assignments: &[&str]) -> Config {
    let mut cfg = Config::default();
    for a in assignments {
        cfg.set(a).unwrap();
    }
    cfg.validate().unwrap();
    cfg
}

#[test]
fn defaults_are_spec_defaults_and_valid() {
    let c = Config::default();
    assert_eq!(c.index_bits, 14);
    assert_eq!(c.max_qps(), 16384);
    assert_eq!(c.gen_bits(), 10);
    assert_eq!(c.entry_bytes, 256);
    assert_eq!(c.mode, Mode::Flat);
    assert_eq!(c.leaf_bits, 10);
    assert_eq!(c.directory, Directory::OnChip);
    assert_eq!(c.max_outstanding, 32);
    assert_eq!(c.ports, ["tx", "rx"]);
    assert_eq!(c.tag_bits, 8);
    assert_eq!(c.addr_bits, 64);
    assert_eq!(c.first_index, 2);
    assert_eq!(c.reuse, Reuse::Cyclic);
    assert_eq!(c.quarantine_cycles, 0);
    assert_eq!(c.quarantine_depth, 64);
    assert_eq!(c.top, "qp_table");
    c.validate().unwrap();
}

#[test]
fn resolved_values() {
    let c = valid(&["index_bits=24"]);
    assert_eq!((c.max_qps(), c.gen_bits()), (1 << 24, 0));
    let c = valid(&["index_bits=4", "max_qps=5"]);
    assert_eq!((c.max_qps(), c.gen_bits()), (5, 20));
}

#[test]
fn edges_of_every_range_are_accepted() {
    valid(&["index_bits=4"]);
    valid(&["index_bits=24", "max_qps=16777216"]);
    valid(&["max_qps=1", "first_index=0"]);
    valid(&["max_qps=16384", "first_index=16383"]);
    valid(&["entry_bytes=32"]);
    valid(&["entry_bytes=4096"]);
    valid(&["max_outstanding=1"]);
    valid(&["max_outstanding=256"]);
    valid(&["ports=a"]);
    valid(&["ports=a,b,c,d"]);
    valid(&["ports=[\"_x\", \"Y9\"]"]);
    valid(&["tag_bits=1"]);
    valid(&["tag_bits=32"]);
    valid(&["addr_bits=32"]);
    valid(&["addr_bits=64"]);
    valid(&["quarantine_depth=1"]);
    valid(&["quarantine_depth=4096"]);
    valid(&["top=_t0", "reuse=lowest", "directory=in_memory"]);
    // leaf_bits is ignored in flat mode.
    valid(&["leaf_bits=0"]);
    valid(&["leaf_bits=99"]);
}

#[test]
fn out_of_range_messages() {
    assert_eq!(
        msg(&["index_bits=30"]),
        "index_bits = 30 is out of range: allowed 4..=24"
    );
    assert_eq!(
        msg(&["index_bits=3"]),
        "index_bits = 3 is out of range: allowed 4..=24"
    );
    assert_eq!(
        msg(&["max_qps=0"]),
        "max_qps = 0 is out of range: allowed 1..=16384 (2^index_bits, index_bits = 14)"
    );
    assert_eq!(
        msg(&["index_bits=4", "max_qps=17"]),
        "max_qps = 17 is out of range: allowed 1..=16 (2^index_bits, index_bits = 4)"
    );
    assert_eq!(
        msg(&["entry_bytes=100"]),
        "entry_bytes = 100 is not allowed: a multiple of 32 in 32..=4096"
    );
    assert_eq!(
        msg(&["entry_bytes=0"]),
        "entry_bytes = 0 is not allowed: a multiple of 32 in 32..=4096"
    );
    assert_eq!(
        msg(&["entry_bytes=4128"]),
        "entry_bytes = 4128 is not allowed: a multiple of 32 in 32..=4096"
    );
    assert_eq!(
        msg(&["max_outstanding=0"]),
        "max_outstanding = 0 is out of range: allowed 1..=256"
    );
    assert_eq!(
        msg(&["max_outstanding=257"]),
        "max_outstanding = 257 is out of range: allowed 1..=256"
    );
    assert_eq!(
        msg(&["tag_bits=0"]),
        "tag_bits = 0 is out of range: allowed 1..=32"
    );
    assert_eq!(
        msg(&["tag_bits=33"]),
        "tag_bits = 33 is out of range: allowed 1..=32"
    );
    assert_eq!(
        msg(&["addr_bits=31"]),
        "addr_bits = 31 is out of range: allowed 32..=64"
    );
    assert_eq!(
        msg(&["addr_bits=65"]),
        "addr_bits = 65 is out of range: allowed 32..=64"
    );
    assert_eq!(
        msg(&["quarantine_cycles=4294967296"]),
        "quarantine_cycles = 4294967296 is out of range: allowed 0..=4294967295"
    );
    assert_eq!(
        msg(&["quarantine_depth=0"]),
        "quarantine_depth = 0 is out of range: allowed 1..=4096"
    );
    assert_eq!(
        msg(&["quarantine_depth=4097"]),
        "quarantine_depth = 4097 is out of range: allowed 1..=4096"
    );
    assert_eq!(invalid(&["tag_bits=0"]).parameter(), "tag_bits");
}

#[test]
fn relation_messages() {
    assert_eq!(
        msg(&["max_qps=10", "first_index=10"]),
        "first_index = 10 is out of range: allowed 0..=9 (below max_qps = 10)"
    );
    // first_index against the resolved max_qps (2^index_bits).
    assert_eq!(
        msg(&["index_bits=4", "first_index=16"]),
        "first_index = 16 is out of range: allowed 0..=15 (below max_qps = 16)"
    );
    // The default first_index = 2 does not fit max_qps = 2.
    assert_eq!(
        msg(&["max_qps=2"]),
        "first_index = 2 is out of range: allowed 0..=1 (below max_qps = 2)"
    );
    // leaf_bits is checked in two_level mode, before the not-implemented refusal.
    assert_eq!(
        msg(&["mode=two_level", "leaf_bits=14"]),
        "leaf_bits = 14 is out of range: allowed 1..=13 (below index_bits = 14)"
    );
    assert_eq!(
        msg(&["mode=two_level", "leaf_bits=0"]),
        "leaf_bits = 0 is out of range: allowed 1..=13 (below index_bits = 14)"
    );
    assert_eq!(invalid(&["max_qps=2"]).parameter(), "first_index");
}

#[test]
fn port_and_top_messages() {
    let ports_msg = |v: &str| {
        format!(
            "ports = {v} is not allowed: 1 to 4 unique names, each a Verilog identifier \
             ([A-Za-z_][A-Za-z0-9_]*)"
        )
    };
    assert_eq!(msg(&["ports=[]"]), ports_msg("[]"));
    assert_eq!(msg(&["ports=tx,tx"]), ports_msg("[\"tx\", \"tx\"]"));
    assert_eq!(
        msg(&["ports=a,b,c,d,e"]),
        ports_msg("[\"a\", \"b\", \"c\", \"d\", \"e\"]")
    );
    assert_eq!(msg(&["ports=[\"9a\"]"]), ports_msg("[\"9a\"]"));
    assert_eq!(msg(&["ports=[\"a-b\"]"]), ports_msg("[\"a-b\"]"));
    assert_eq!(msg(&["ports=[\"\"]"]), ports_msg("[\"\"]"));
    assert_eq!(msg(&["ports=tx,"]), ports_msg("[\"tx\", \"\"]"));
    assert_eq!(msg(&["ports=[\"t x\"]"]), ports_msg("[\"t x\"]"));
    let top_msg = |v: &str| {
        format!(
            "top = {v} is not allowed: a Verilog identifier ([A-Za-z_][A-Za-z0-9_]*) that is \
             not a Verilog or SystemVerilog keyword"
        )
    };
    assert_eq!(msg(&["top=module"]), top_msg("\"module\""));
    assert_eq!(msg(&["top=logic"]), top_msg("\"logic\""));
    assert_eq!(msg(&["top=1qp"]), top_msg("\"1qp\""));
    assert_eq!(msg(&["top=qp$table"]), top_msg("\"qp$table\""));
    assert_eq!(msg(&["top="]), top_msg("\"\""));
    assert_eq!(invalid(&["top=wire"]).parameter(), "top");
    let port_msg = |v: &str| {
        format!(
            "top = {v} is not allowed: a name that is not a port of the top level (clk, rst, \
             s_axil_*, m_axi_*, s_<port>_req_*, m_<port>_rsp_*): the module would hide its \
             own port (Verilator VARHIDDEN)"
        )
    };
    assert_eq!(msg(&["top=clk"]), port_msg("\"clk\""));
    assert_eq!(msg(&["top=rst"]), port_msg("\"rst\""));
    assert_eq!(msg(&["top=s_axil_awaddr"]), port_msg("\"s_axil_awaddr\""));
    assert_eq!(msg(&["top=m_axi_arid"]), port_msg("\"m_axi_arid\""));
    assert_eq!(msg(&["top=s_tx_req_valid"]), port_msg("\"s_tx_req_valid\""));
    assert_eq!(
        msg(&["ports=a,b", "top=m_b_rsp_ready"]),
        port_msg("\"m_b_rsp_ready\"")
    );
    // Names near the families are fine: another port's family, no family at all.
    valid(&["ports=a,b", "top=s_tx_req_valid"]);
    valid(&["top=clk2"]);
    valid(&["top=s_axi_lite"]);
}

/// Every port of the generated top level, in flat and in two_level in_memory (the
/// `m_axi_*` master) and with other port names, is refused as `top`.
#[test]
fn no_port_of_the_top_level_is_a_top() {
    for base in [
        &[][..],
        &["mode=two_level", "directory=in_memory"][..],
        &["ports=a,b,c,d", "mode=two_level"][..],
    ] {
        let cfg = valid(base);
        let top = crate::hw::qp_table::QpTable::new(crate::hw::EngineParams::new(&cfg), &cfg.ports);
        assert!(
            top.ports().len() > 10,
            "{base:?}: {} ports",
            top.ports().len()
        );
        for p in top.ports() {
            let mut set = base.to_vec();
            let top = format!("top={}", p.name);
            set.push(&top);
            assert_eq!(invalid(&set).parameter(), "top", "{set:?}");
        }
    }
}

#[test]
fn every_mode_and_directory_is_accepted() {
    // Both directories are implemented: nothing is refused as not implemented. The
    // directory matters only in two_level mode and is accepted (and ignored) in flat.
    valid(&["mode=two_level", "directory=in_memory"]);
    valid(&["directory=in_memory"]);
    valid(&["mode=two_level", "directory=on_chip"]);
}

#[test]
fn unknown_parameter() {
    let known = "index_bits, max_qps, entry_bytes, mode, leaf_bits, directory, \
                 max_outstanding, ports, tag_bits, addr_bits, first_index, reuse, \
                 quarantine_cycles, quarantine_depth, top, state, block_bits, \
                 cache_lines, max_misses, mem_data_bits, fpga";
    let e = Config::default().set("foo=1").unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("unknown parameter `foo`: known parameters are {known}")
    );
    assert_eq!(e.parameter(), "foo");
    let e = Config::from_toml_str("index_bits = 12\nbar = \"x\"\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("unknown parameter `bar`: known parameters are {known}")
    );
    // A TOML table is an unknown top-level key too.
    let e = Config::from_toml_str("[engine]\nindex_bits = 12\n").unwrap_err();
    assert_eq!(e.parameter(), "engine");
}

#[test]
fn malformed_values() {
    let set_err = |a: &str| Config::default().set(a).unwrap_err().to_string();
    assert_eq!(
        set_err("index_bits=abc"),
        "index_bits = abc is not allowed: expected an integer in 4..=24"
    );
    assert_eq!(
        set_err("index_bits=1.5"),
        "index_bits = 1.5 is not allowed: expected an integer in 4..=24"
    );
    assert_eq!(
        set_err("index_bits="),
        "index_bits = \"\" is not allowed: expected an integer in 4..=24"
    );
    assert_eq!(
        set_err("index_bits=-1"),
        "index_bits = -1 is out of range: allowed 4..=24"
    );
    assert_eq!(
        set_err("max_qps=4294967296"),
        "max_qps = 4294967296 is out of range: allowed 1..=2^index_bits"
    );
    assert_eq!(
        set_err("entry_bytes=true"),
        "entry_bytes = true is not allowed: expected an integer in 32..=4096 (a multiple of 32)"
    );
    assert_eq!(
        set_err("mode=flatt"),
        "mode = flatt is not allowed: one of flat, two_level"
    );
    assert_eq!(
        set_err("mode=1"),
        "mode = 1 is not allowed: expected one of flat, two_level"
    );
    assert_eq!(
        set_err("directory=dram"),
        "directory = dram is not allowed: one of on_chip, in_memory"
    );
    assert_eq!(
        set_err("fpga=xilinx"),
        "fpga = xilinx is not allowed: one of generic, ecp5"
    );
    assert_eq!(
        set_err("fpga=5"),
        "fpga = 5 is not allowed: expected one of generic, ecp5"
    );
    assert_eq!(
        set_err("reuse=random"),
        "reuse = random is not allowed: one of cyclic, lowest"
    );
    assert_eq!(
        set_err("ports=[1, 2]"),
        "ports = [1, 2] is not allowed: expected a list of 1 to 4 unique names, each a \
         Verilog identifier ([A-Za-z_][A-Za-z0-9_]*)"
    );
    assert_eq!(
        set_err("top=[\"a\"]"),
        "top = [\"a\"] is not allowed: expected a string, a Verilog identifier \
         ([A-Za-z_][A-Za-z0-9_]*) that is not a Verilog or SystemVerilog keyword"
    );
    assert_eq!(
        set_err("quarantine_cycles=-5"),
        "quarantine_cycles = -5 is out of range: allowed 0..=4294967295"
    );
    assert_eq!(
        set_err("index_bits 12"),
        "`index_bits 12` is not an assignment: expected name=value"
    );
    // In a file the value is shown as TOML.
    assert_eq!(
        Config::from_toml_str("mode = \"flatt\"")
            .unwrap_err()
            .to_string(),
        "mode = \"flatt\" is not allowed: one of flat, two_level"
    );
    assert_eq!(
        Config::from_toml_str("index_bits = \"12\"")
            .unwrap_err()
            .to_string(),
        "index_bits = \"12\" is not allowed: expected an integer in 4..=24"
    );
    let e = Config::from_toml_str("tag_bits = 1.0").unwrap_err();
    assert_eq!(e.parameter(), "tag_bits");
}

#[test]
fn bad_toml() {
    let e = Config::from_toml_str("index_bits = 12\nmode = \n").unwrap_err();
    assert_eq!(e.parameter(), "");
    let m = e.to_string();
    assert!(
        m.starts_with("configuration is not valid TOML at line 2, column 8: invalid string"),
        "{m}"
    );
    assert!(!m.contains('\n'), "{m}");
    let e = Config::from_toml_str("index_bits = 12\nindex_bits = 13\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "configuration is not valid TOML at line 2, column 1: duplicate key `index_bits` in \
         document root"
    );
    let e = Config::from_toml_file(Path::new("/nonexistent/qptable.toml")).unwrap_err();
    assert!(e
        .to_string()
        .starts_with("cannot read configuration file /nonexistent/qptable.toml: "));
}

#[test]
fn file_errors_name_the_file() {
    let dir = std::env::temp_dir().join(format!("qptable-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.toml");
    std::fs::write(&path, "tag_bits = \"x\"\n").unwrap();
    let e = Config::from_toml_file(&path).unwrap_err();
    assert_eq!(e.parameter(), "tag_bits");
    assert_eq!(
        e.to_string(),
        format!(
            "{}: tag_bits = \"x\" is not allowed: expected an integer in 1..=32",
            path.display()
        )
    );
    let good = dir.join("good.toml");
    std::fs::write(&good, "index_bits = 10\nports = [\"a\"]\n").unwrap();
    let c = Config::from_toml_file(&good).unwrap();
    assert_eq!((c.index_bits, c.ports.clone()), (10, vec!["a".to_string()]));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn missing_keys_take_defaults() {
    assert_eq!(Config::from_toml_str("").unwrap(), Config::default());
    let c = Config::from_toml_str("index_bits = 20\nreuse = \"lowest\"\n").unwrap();
    assert_eq!(
        c,
        Config {
            index_bits: 20,
            reuse: Reuse::Lowest,
            ..Config::default()
        }
    );
}

#[test]
fn state_in_memory_parameters() {
    // Accepted in range with the state on chip (where they have no effect)...
    let mut c = Config::default();
    for a in [
        "state=on_chip",
        "block_bits=8",
        "cache_lines=16",
        "max_misses=256",
        "mem_data_bits=64",
    ] {
        c.set(a).unwrap();
    }
    c.validate().unwrap();
    // ...refused out of range, naming the parameter, the value and what is allowed...
    assert_eq!(
        invalid(&["block_bits=2"]).to_string(),
        "block_bits = 2 is out of range: allowed 3..=8"
    );
    assert_eq!(
        invalid(&["block_bits=9"]).to_string(),
        "block_bits = 9 is out of range: allowed 3..=8"
    );
    assert_eq!(
        invalid(&["cache_lines=1000"]).to_string(),
        "cache_lines = 1000 is not allowed: a power of two in 16..=65536"
    );
    assert_eq!(
        invalid(&["cache_lines=8"]).to_string(),
        "cache_lines = 8 is not allowed: a power of two in 16..=65536"
    );
    assert_eq!(invalid(&["cache_lines=131072"]).parameter(), "cache_lines");
    assert_eq!(
        invalid(&["max_misses=0"]).to_string(),
        "max_misses = 0 is out of range: allowed 1..=256"
    );
    assert_eq!(
        invalid(&["mem_data_bits=32"]).to_string(),
        "mem_data_bits = 32 is not allowed: one of 64, 128, 256 or 512"
    );
    // The state in memory works with every table organisation (SPEC §9).
    valid(&["state=in_memory"]);
    valid(&["state=in_memory", "mode=two_level"]);
    valid(&["state=in_memory", "mode=two_level", "directory=in_memory"]);
    valid(&[
        "state=in_memory",
        "mode=two_level",
        "directory=in_memory",
        "mem_data_bits=512",
        "max_outstanding=256",
        "max_misses=1",
    ]);
    valid(&["mode=two_level", "directory=in_memory", "mem_data_bits=512"]);
    let mut c = Config::default();
    assert_eq!(
        c.set("state=cache").unwrap_err().to_string(),
        "state = cache is not allowed: one of on_chip, in_memory"
    );
}

#[test]
fn parsing_does_not_validate() {
    // An override can repair a file: ranges are checked only by validate().
    let mut c = Config::from_toml_str("mode = \"two_level\"\nindex_bits = 99\n").unwrap();
    assert!(c.validate().is_err());
    c.set("mode=flat").unwrap();
    c.set("index_bits=12").unwrap();
    c.validate().unwrap();
}

#[test]
fn set_accepts_toml_and_bare_words() {
    let mut c = Config::default();
    c.set("index_bits=12").unwrap();
    c.set(" max_qps = 0x100 ").unwrap();
    c.set("entry_bytes=64").unwrap();
    c.set("mode=flat").unwrap();
    c.set("leaf_bits=6").unwrap();
    c.set("directory=\"in_memory\"").unwrap();
    c.set("max_outstanding=8").unwrap();
    c.set("ports=[\"tx\",\"rx\",\"ctl\"]").unwrap();
    c.set("tag_bits=16").unwrap();
    c.set("addr_bits=48").unwrap();
    c.set("first_index=0").unwrap();
    c.set("reuse=lowest").unwrap();
    c.set("quarantine_cycles=0").unwrap();
    c.set("quarantine_depth=128").unwrap();
    c.set("top=my_qpt").unwrap();
    c.set("state=on_chip").unwrap();
    c.set("block_bits=3").unwrap();
    c.set("cache_lines=65536").unwrap();
    c.set("max_misses=1").unwrap();
    c.set("mem_data_bits=64").unwrap();
    c.set("fpga=ecp5").unwrap();
    assert_eq!(
        c,
        Config {
            index_bits: 12,
            max_qps: Some(256),
            entry_bytes: 64,
            mode: Mode::Flat,
            leaf_bits: 6,
            directory: Directory::InMemory,
            max_outstanding: 8,
            ports: vec!["tx".into(), "rx".into(), "ctl".into()],
            tag_bits: 16,
            addr_bits: 48,
            first_index: 0,
            reuse: Reuse::Lowest,
            quarantine_cycles: 0,
            quarantine_depth: 128,
            top: "my_qpt".into(),
            state: State::OnChip,
            block_bits: 3,
            cache_lines: 65536,
            max_misses: 1,
            mem_data_bits: 64,
            fpga: Fpga::Ecp5,
        }
    );
    c.validate().unwrap();
    c.set("ports=a, b").unwrap();
    assert_eq!(c.ports, ["a", "b"]);
    c.set("ports=[c,d]").unwrap();
    assert_eq!(c.ports, ["c", "d"]);
    c.set("ports=solo").unwrap();
    assert_eq!(c.ports, ["solo"]);
    c.set("mode=two_level").unwrap();
    assert_eq!(c.mode, Mode::TwoLevel);
}

#[test]
fn toml_round_trip() {
    let configs = [
        Config::default(),
        valid(&[
            "index_bits=24",
            "max_qps=1000",
            "entry_bytes=4096",
            "ports=a,b,c,d",
            "tag_bits=32",
            "addr_bits=32",
            "first_index=999",
            "reuse=lowest",
            "quarantine_depth=1",
            "top=t",
            "directory=in_memory",
            "leaf_bits=3",
            "max_outstanding=256",
            "fpga=ecp5",
        ]),
        Config {
            mode: Mode::TwoLevel,
            quarantine_cycles: 4_294_967_295,
            ..Config::default()
        },
    ];
    for c in configs {
        let text = c.to_toml();
        assert_eq!(Config::from_toml_str(&text).unwrap(), c, "{text}");
    }
    let text = Config::default().to_toml();
    assert!(!text.contains("max_qps"), "{text}");
    assert!(text.contains("ports = [\"tx\", \"rx\"]\n"), "{text}");
    assert!(text.contains("mode = \"flat\"\n"), "{text}");
    assert!(text.starts_with("index_bits = 14\n"), "{text}");
}

#[test]
fn serde_names_are_snake_case() {
    let t = toml::to_string(&Config {
        mode: Mode::TwoLevel,
        directory: Directory::InMemory,
        reuse: Reuse::Lowest,
        ..Config::default()
    })
    .unwrap();
    assert!(t.contains("mode = \"two_level\""), "{t}");
    assert!(t.contains("directory = \"in_memory\""), "{t}");
    assert!(t.contains("reuse = \"lowest\""), "{t}");
}
