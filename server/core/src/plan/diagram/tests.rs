//! The diagram checks, case by case.

use super::*;
use DiagramKind as K;

#[test]
fn unquoted_brackets_in_flowchart_labels_are_caught() {
    let r = reason("flowchart TD\n  A[start] --> C[greet(name)]");
    assert!(
        r.contains("node `C`") && r.contains("C[\"greet(name)\"]"),
        "{r}"
    );
    let r = reason("graph LR\n  A{is x[0] set?} --> B");
    assert!(r.contains("node `A`") && r.contains('['), "{r}");
    let r = reason("flowchart TD\n  A([call f(x)])");
    assert!(r.contains("node `A`"), "{r}");
    for good in [
        "flowchart TD\n  A[\"greet(name)\"] --> B",
        "flowchart TD\n  A[(database)] --> B((circle)) --> C{decide}",
        "flowchart TD\n  A[/parallelogram/] --> B[\\alt\\] --> C[/trap\\]",
        "flowchart TD\n  A{{hexagon}} --> B([stadium]) --> C[[subroutine]] --> D(((double)))",
        "flowchart TD\n  A -->|calls f(x)| B\n  %% C[f(x)] in a comment",
        "flowchart LR\n  A[\"list[0] (first)\"] -.-> B",
    ] {
        accept(good);
    }
}

fn input(id: &str, src: &str) -> DiagramInput {
    DiagramInput {
        id: id.into(),
        title: "T".into(),
        explanation: "E".into(),
        section: None,
        kind: None,
        mermaid: src.into(),
    }
}
fn ok(d: &DiagramInput) -> ValidDiagram {
    validate(d).unwrap_or_else(|e| panic!("dropped {:?}: {}", d.mermaid, e.reason))
}
fn err(d: &DiagramInput) -> String {
    validate(d).map_or_else(|e| e.reason, |v| panic!("accepted {v:?}"))
}
fn accept(src: &str) -> ValidDiagram {
    ok(&input("d", src))
}
fn reason(src: &str) -> String {
    err(&input("d", src))
}
fn rejects(cases: &[(&str, &str)]) {
    cases.iter().for_each(|(src, want)| {
        let r = reason(src);
        assert!(r.contains(want), "{src:?}: {r:?} lacks {want:?}")
    });
}
fn flow(body: &str) -> String {
    format!("flowchart TD\n{body}")
}

#[test]
fn allowed_types_are_accepted_and_kind_inferred() {
    let cases = [
        (
            "flowchart TD\n  A[Start] --> B{Ok?}\n  B -->|yes| C((Done))",
            "flowchart",
            K::Flow,
        ),
        ("graph LR; A-->B; B-->C", "graph", K::Flow),
        (
            "sequenceDiagram\n  participant A as Alice\n  A->>+B: hi\n  B-->>-A: ok",
            "sequenceDiagram",
            K::Sequence,
        ),
        ("stateDiagram\n  [*] --> Idle", "stateDiagram", K::State),
        (
            "stateDiagram-v2\n  state fork <<fork>>\n  [*] --> fork\n  fork --> A",
            "stateDiagram-v2",
            K::State,
        ),
        (
            "erDiagram\n  USER ||--o{ ORDER : places",
            "erDiagram",
            K::Data,
        ),
        (
            "classDiagram\n  class Shape {\n    <<interface>>\n    +draw()\n  }\n  Shape <|-- Circle",
            "classDiagram",
            K::Components,
        ),
        (
            "gantt\n  title Plan\n  dateFormat YYYY-MM-DD\n  section A\n  Build : a1, 2024-01-01, 3d",
            "gantt",
            K::Overview,
        ),
        (
            "mindmap\n  root((Plan))\n    A\n    B",
            "mindmap",
            K::Overview,
        ),
        (
            "timeline\n  title T\n  2024 : Alpha : Beta",
            "timeline",
            K::Overview,
        ),
        (
            "journey\n  title Day\n  section Work\n    Code: 5: Me",
            "journey",
            K::Overview,
        ),
    ];
    for (src, ty, kind) in cases {
        let v = accept(src);
        assert_eq!((v.mermaid_type, v.kind, infer_kind(ty)), (ty, kind, kind));
    }
    assert_eq!(infer_kind("pie"), K::Other);
    assert_eq!(
        mermaid_type("\n%% note\n  flowchart TD\nA-->B"),
        Some("flowchart")
    );
    assert_eq!(
        mermaid_type("---\ntitle: x\n---\nsequenceDiagram"),
        Some("sequenceDiagram")
    );
    assert_eq!(mermaid_type("\u{feff}gantt"), Some("gantt"));
    for bad in [
        "pie title x",
        "flowchart-elk TD",
        "architecture-beta",
        "Flowchart TD",
        "classDiagram-v2",
        "A-->B",
    ] {
        assert!(
            mermaid_type(bad).is_none()
                && reason(bad)
                    .contains("is not allowed; use one of flowchart, graph, sequenceDiagram")
        );
    }
    rejects(&[
        ("", "diagram is empty"),
        (" \n\t\n", "diagram is empty"),
        ("%% a comment\n", "only comments"),
        ("---\ntitle: x\n---\n", "only comments"),
    ]);
}

#[test]
fn kind_fields_and_ids() {
    let mut d = input("d", "flowchart TD\nA-->B");
    d.kind = Some(" Architecture ".into());
    assert_eq!(validate(&d).map(|v| v.kind), Ok(K::Architecture));
    d.kind = Some(String::new());
    assert_eq!(validate(&d).map(|v| v.kind), Ok(K::Flow));
    d.kind = Some("bogus".into());
    assert!(validate(&d).is_err_and(|e| {
        e.reason
            .contains("type `bogus` is unknown; use one of overview, flow")
    }));
    for (k, n) in KINDS {
        assert_eq!(
            (k.as_str(), DiagramKind::parse(&n.to_uppercase())),
            (n, Some(k))
        );
    }
    for id in ["a", "auth-flow", "v2-api-3", &"a".repeat(64)] {
        assert!(validate(&input(id, "graph TD\nA-->B")).is_ok(), "{id}");
    }
    for (id, want) in [
        ("", "id is empty"),
        ("Auth", "kebab"),
        ("a--b", "kebab"),
        ("-a", "kebab"),
        ("a-", "kebab"),
        ("a_b", "kebab"),
        ("../x", "kebab"),
        ("a b", "kebab"),
        ("é", "kebab"),
        (&"a".repeat(65), "id is 65 characters; the limit is 64"),
    ] {
        assert!(err(&input(id, "graph TD\nA-->B")).contains(want), "{id}");
    }
    let mut d = DiagramInput {
        section: Some("  Steps ".into()),
        title: " Title ".into(),
        ..input("d", "graph TD\nA-->B")
    };
    let v = ok(&d);
    assert_eq!(
        (
            v.title.as_str(),
            v.section.as_deref(),
            v.explanation.as_str()
        ),
        ("Title", Some("Steps"), "E")
    );
    d.section = Some(" ".into());
    assert_eq!(ok(&d).section, None);
    d.title = "  ".into();
    assert_eq!(err(&d), "title is empty");
    d.title = "t".into();
    d.explanation = "x".repeat(4001);
    assert_eq!(err(&d), "explanation is 4001 characters; the limit is 4000");
}

#[test]
fn size_limit_in_bytes_with_multibyte_boundary() {
    let base = format!(
        "flowchart TD\nA[{}]",
        "é".repeat((MAX_DIAGRAM_BYTES - 16) / 2 - 1)
    );
    assert_eq!(base.len(), MAX_DIAGRAM_BYTES - 2);
    let exact = format!("{base}é");
    assert_eq!(accept(&exact).mermaid.len(), MAX_DIAGRAM_BYTES);
    assert_eq!(
        reason(&format!("{exact}\n")),
        "diagram is 8193 bytes; the limit is 8192"
    );
    assert_eq!(
        reason(&format!("{base}\u{1F600}")),
        "diagram is 8194 bytes; the limit is 8192"
    );
}

#[test]
fn node_limit_and_estimates() {
    let chain = |n: usize| {
        flow(
            &(1..n)
                .map(|i| format!("n{i} --> n{}", i + 1))
                .collect::<Vec<_>>()
                .join("\n"),
        )
    };
    assert_eq!(accept(&chain(40)).estimated_nodes, 40);
    assert_eq!(
        reason(&chain(41)),
        "diagram has about 41 nodes; the limit is 40; split or simplify it"
    );
    let cases = [
        (
            "flowchart",
            "flowchart TD\nA[Start here] --> B{Is it?}\nB -->|Yes| C(Ok)\nB -- No way --> D\nD == big text ==> C\nD -. dotted .-> A\nC & D --> E:::hot\nsubgraph S [Group]\nF\nend\nclassDef hot fill:#f00\nstyle A fill:#0f0\nA --o G\nA e1@--> H",
            8,
        ),
        ("graph", "graph TD;A-->B;B-->C;my-node-->A", 4),
        (
            "sequenceDiagram",
            "sequenceDiagram\nparticipant A as Alice\nactor Bob\nA->>+Bob: hi\nBob-->>-A: ok\nA-x Web-Server: x\nnote right of A: n\nloop L\nA->>A: self\nend",
            3,
        ),
        (
            "stateDiagram-v2",
            "stateDiagram-v2\n[*] --> Idle\nIdle --> Busy : start\nstate \"Long name\" as Long\nstate Comp {\n  Inner --> Idle\n}\nnote right of Idle\n  Ghost --> Phantom\nend note\nBusy --> [*]",
            5,
        ),
        (
            "erDiagram",
            "erDiagram\nUSER ||--o{ ORDER : places\nORDER ||--|{ LINE-ITEM : contains\nPRODUCT {\n  string name PK\n  int price\n}\nUSER }|..|{ ADDRESS : has",
            5,
        ),
        (
            "classDiagram",
            "classDiagram\nclass Animal {\n  +int age\n  +eat()\n}\nAnimal <|-- Duck\nAnimal \"1\" --> \"*\" Leg : has\nDuck : +swim()\n<<interface>> Swimmer\nSwimmer ..|> Duck\nnamespace Farm {\nclass Cow\n}\nFish --o Pond",
            7,
        ),
        (
            "mindmap",
            "mindmap\n  root((R))\n    A\n      B\n    ::icon(fa fa-book)\n    C",
            4,
        ),
        (
            "gantt",
            "gantt\n title G\n dateFormat YYYY-MM-DD\n axisFormat %H:%M\n section S\n A : a1, 2024-01-01, 1d\n B : after a1, 2d",
            2,
        ),
        (
            "timeline",
            "timeline\n title T\n section S\n 2002 : LinkedIn\n 2004 : Facebook : Google\n      : Flickr\n 2005",
            4,
        ),
        (
            "journey",
            "journey\n title J\n section S\n  Make tea: 5: Me\n  Drink: 3: Me, Cat",
            2,
        ),
        ("pie", "pie\n \"a\" : 1\n \"b\" : 2", 2),
    ];
    for (ty, src, want) in cases {
        assert_eq!(estimate_nodes(ty, src), want, "{ty}");
    }
}

#[test]
fn directive_statements() {
    for w in ["click", "link", "links", "callback", "call", "CLICK"] {
        let r = reason(&flow(&format!("A-->B\n  {w} A \"x\"")));
        assert!(
            r.contains(&format!(
                "`{}` directives are not allowed",
                w.to_lowercase()
            )),
            "{r}"
        );
    }
    rejects(&[
        ("graph TD;A-->B;click A cb", "`click`"),
        (
            "sequenceDiagram\nA->>B: hi\nlink A: Docs @ https://x.test",
            "`link`",
        ),
        (
            "classDiagram\nclass Shape\ncallback Shape \"fn\"",
            "`callback`",
        ),
        (
            "gantt\nT : t1, 2024-01-01, 1d\nclick t1 call cb()",
            "`click`",
        ),
    ]);
    accept(&flow(
        "clicked --> linker\nA[click here] --> B(call me)\nlink-to --> B",
    ));
    accept("sequenceDiagram\nA->>B: click the link to call back");
}

#[test]
fn urls_schemes_entities_and_href() {
    let cases = [
        ("A[\"javascript:alert(1)\"]", "`javascript:` URLs"),
        ("A[\"JaVa\tScRiPt :alert(1)\"]", "`javascript:` URLs"),
        ("A[\"javascript&colon;alert(1)\"]", "`javascript:` URLs"),
        ("A[\"java&Tab;script:x\"]", "`javascript:` URLs"),
        ("A[\"javascript#colon;x\"]", "`javascript:` URLs"),
        ("A[\"java&amp;#115;cript:x\"]", "character entity"),
        ("A[\"java&#115;cript:x\"]", "character entity `&#115;`"),
        ("A[\"java&#x73;cript:x\"]", "character entity `&#x73;`"),
        ("A[\"java#115;cript:x\"]", "character entity `#115;`"),
        ("A[\"x&#58;y\"]", "character entity"),
        ("A[\"x&#0;y\"]", "character entity"),
        ("A[\"x&#99999999999;y\"]", "character entity"),
        ("A[\"vbscript:x\"]", "`vbscript:` URLs"),
        ("A[\"data:text/html,x\"]", "`data:` URLs"),
        ("A[\"(DATA : image/svg+xml;base64,x)\"]", "`data:` URLs"),
        ("A[\"data:,x\"]", "`data:` URLs"),
        ("A[\"x url(http://e.test)\"]", "`url(`"),
        ("A[\"x URL&lpar;a)\"]", "`url(`"),
        ("A[\"see href\"]", "`href` is not allowed"),
        (
            "A@{ img: \"https://e.test/a.png\", label: \"x\" }",
            "image shapes",
        ),
    ];
    for (body, want) in cases {
        rejects(&[(&flow(body), want)]);
    }
    accept(&flow(
        "A[\"User data: stored\"] --> B[\"metadata:text/x\"]\nB --> C[\"Frontend (JavaScript) #9829; #quot;hi#quot; &#9829; &amp;\"]",
    ));
    accept(&flow(
        "A[\"Fetch URL (signed)\"] --> B[\"curl(x)\"]\nB --> C@{ shape: rect, label: \"imgs\" }\nC --> D[\"Issue #42;\"]",
    ));
}

#[test]
fn html_tags() {
    for t in [
        "<img src=x onerror=alert(1)>",
        "<script>",
        "</b>",
        "<br>",
        "<br/>",
        "<!-- c -->",
        "<svg onload=x>",
        "<?x",
        "#lt;script#gt;",
        "&lt;b&gt;",
        "&#60;b&#62;",
    ] {
        assert!(
            reason(&flow(&format!("A[\"{t}\"] --> B"))).contains("HTML tags are not allowed"),
            "{t}"
        );
    }
    rejects(&[
        ("sequenceDiagram\nA->>B: <img src=x>", "HTML tags"),
        ("flowchart TD\nA[\"<<iface>>\"]", "HTML tags"),
        ("classDiagram\nclass A\n<<script", "HTML tags"),
        ("---\ntitle: <b>x</b>\n---\ngraph TD\nA-->B", "HTML tags"),
    ]);
    accept(&flow(
        "A --> B\nB <--> C\nC -.-> D\nD ==> E\nE --- F[\"a < b, 3 <= 4, #lt; 5, x<3\"]",
    ));
    accept(
        "classDiagram\nclass Shape {\n  <<interface>>\n}\nShape <|-- Circle\n<<abstract>> Circle",
    );
    accept("sequenceDiagram\nA<<->>B: both\nA-)B: async");
    accept("erDiagram\nA }|..|{ B : x\nB ||--o{ C : y");
}

#[test]
fn init_directives_and_front_matter() {
    rejects(&[
        (
            "%%{init: {\"securityLevel\":\"loose\"}}%%\nflowchart TD\nA-->B",
            "`%%{init}%%` directive sets `securityLevel`",
        ),
        (
            "%%{init:{'theme':'base','themeCSS':'.x{}'}}%%\ngraph TD\nA-->B",
            "sets `themeCSS`",
        ),
        (
            "graph TD\nA-->B\n%%{ init: { 'flowchart': { 'htmlLabels': true } } }%%",
            "sets `htmlLabels`",
        ),
        (
            "%%{init: {\"themeVariables\": {\"fontFamily\": \"x\"}}}%%\ngraph TD\nA-->B",
            "sets `fontFamily`",
        ),
        (
            "%%{wrap}%%\nsequenceDiagram\nA->>B: x",
            "`%%{...}%%` directives are not allowed",
        ),
        (
            "%% {init: {}}%%\ngraph TD\nA-->B",
            "`%%{...}%%` directives are not allowed",
        ),
        (
            "---\nconfig:\n  theme: forest\n---\ngraph TD\nA-->B",
            "front matter `config:` is not allowed",
        ),
        (
            "---\nconfig:\n  securityLevel: loose\n---\ngraph TD\nA-->B",
            "front matter sets `securityLevel`",
        ),
        (
            "---\ntitle: x\nmaxTextSize: 9\n---\ngraph TD\nA-->B",
            "front matter sets `maxTextSize`",
        ),
        (
            "---\ntitle: x\ndisplayMode: compact\n---\ngantt",
            "front matter line `displayMode: compact` is not allowed",
        ),
        (
            "---\ntitle: x\ngraph TD\nA-->B",
            "front matter (`---`) is not closed",
        ),
        (
            "%% c\n---\ntitle: x\n---\ngraph TD",
            "type `---` is not allowed",
        ),
    ]);
    accept("---\ntitle: Login flow\n---\n%% a comment about securityLevel\nflowchart TD\nA-->B");
    accept("\n---\ntitle: x\n# yaml comment\n---\ngraph TD\nA-->B\n%% trailing comment");
}

#[test]
fn style_lines() {
    accept(&flow(
        "A-->B\nstyle A fill:#f9f,stroke:#333,stroke-width:4px,stroke-dasharray: 5 5\nclassDef hot fill:rgb(255,0,0),color:#fff;\nlinkStyle 0 stroke:#060;\nclass A hot",
    ));
    accept(
        "stateDiagram-v2\n[*] --> A\nclassDef bad fill:hsla(0,100%,50%,0.5),font-weight:bold\nclass A bad",
    );
    let cases = [
        ("style A fill:url(#p)", "`url(`"),
        (
            "style A background:expression(alert(1))",
            "`expression(` is not allowed in style lines",
        ),
        ("classDef x fill:red;@import x", "`@import`"),
        (
            "classDef x fill:red}body{color:red",
            "`{` or `}` is not allowed in style lines",
        ),
        ("style A font-family:Comic", "`fontFamily`"),
        ("classDef x fontFamily:Comic", "`fontFamily`"),
        ("style A fill:u\\72l(x)", "backslash"),
        ("style A fill:image-set(x)", "CSS function `image-set(`"),
        ("linkStyle 0 stroke:\"x\"", "the character `\"`"),
        ("A;style A fill:red}", "`{` or `}`"),
    ];
    for (line, want) in cases {
        rejects(&[(&flow(&format!("A-->B\n{line}")), want)]);
    }
    rejects(&[(
        "stateDiagram-v2\n[*] --> A\nclassDef x fill:red}body{color:red",
        "`{` or `}`",
    )]);
}

#[test]
fn validate_all_limits_and_duplicates() {
    let list: Vec<_> = (0..7)
        .map(|i| input(&format!("d{}", i.min(5)), "graph TD\nA-->B"))
        .collect();
    let (ok, dropped) = validate_all(&list, DEFAULT_MAX_DIAGRAMS);
    assert_eq!(
        ok.iter().map(|v| v.id.as_str()).collect::<Vec<_>>(),
        ["d0", "d1", "d2", "d3", "d4"]
    );
    assert_eq!(
        dropped.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(),
        ["d5", "d5"]
    );
    assert_eq!(
        dropped[0].reason,
        "only 5 diagrams are allowed per plan; this is diagram 6"
    );
    let list = [
        input("a", "graph TD\nA-->B"),
        input("Bad", "graph TD"),
        input("a", "graph TD\nX-->Y"),
        input("c", "pie"),
    ];
    let (ok, dropped) = validate_all(&list, 5);
    assert_eq!((ok.len(), ok[0].mermaid.as_str()), (1, "graph TD\nA-->B"));
    assert!(
        dropped[0].reason.contains("kebab") && dropped[2].reason.contains("`pie` is not allowed")
    );
    assert_eq!(
        (dropped[1].id.as_str(), dropped[1].reason.as_str()),
        ("a", "duplicate id `a`; each diagram needs a unique id")
    );
    assert_eq!(validate_all(&list, 0).1.len(), 4);
    assert_eq!(validate_all(&[], 5), (vec![], vec![]));
}

#[test]
fn revision_marks() {
    let v = |id: &str, src: &str| ok(&input(id, src));
    let prev = [
        ("same", "graph TD\nA-->B"),
        ("chg", "graph TD\nA-->B"),
        ("zz-gone", "graph TD"),
        ("a-gone", "graph TD"),
    ]
    .map(|(a, b)| (a.to_string(), b.to_string()));
    let cur = [
        v("same", "\n\ngraph TD  \r\nA-->B\t\n\n"),
        v("chg", "graph TD\nA-->C"),
        v("fresh", "graph TD\nA-->B"),
    ];
    let (marks, removed) = mark_revision(&prev, &cur);
    assert_eq!(
        marks,
        [
            ("same", Mark::Unchanged),
            ("chg", Mark::Updated),
            ("fresh", Mark::New)
        ]
        .map(|(a, m)| (a.to_string(), m))
    );
    assert_eq!(removed, ["a-gone", "zz-gone"]);
    assert_eq!(mark_revision(&[], &[]), (vec![], vec![]));
    assert_eq!(normalize("  \n x  \n\n y\n \n"), " x\n\n y");
}

#[test]
fn garbage_never_panics() {
    let all: String = (0..=0x10FFFFu32)
        .step_by(97)
        .filter_map(char::from_u32)
        .collect();
    let (mut seed, alphabet) = (
        0x2545_F491_4F6C_DD1Du64,
        "<>&#;:-=.|[](){}\"'%@*oxé😀\u{feff} \n\tabcABC012-->"
            .chars()
            .collect::<Vec<_>>(),
    );
    let noise: String = (0..100_000)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            alphabet[(seed % alphabet.len() as u64) as usize]
        })
        .collect();
    for body in [
        all.as_str(),
        noise.as_str(),
        &"a".repeat(100_000),
        &"[(\"".repeat(40_000),
    ] {
        for ty in ALLOWED_TYPES.iter().chain(&["pie", ""]) {
            let src = format!("{ty}\n{body}");
            let _ = (
                estimate_nodes(ty, &src),
                mermaid_type(&src),
                validate(&input("x", &src)),
            );
            let b = body.to_string();
            let _ = validate(&DiagramInput {
                id: b.clone(),
                title: b.clone(),
                explanation: b.clone(),
                section: Some(b.clone()),
                kind: Some(b.clone()),
                mermaid: b,
            });
        }
    }
    let (all, noise): (Vec<char>, Vec<char>) = (all.chars().collect(), noise.chars().collect());
    for chunk in all.chunks(1500).chain(noise.chunks(3000)) {
        for ty in ALLOWED_TYPES {
            let mut src = format!("{ty}\n{}", chunk.iter().collect::<String>());
            while src.len() > MAX_DIAGRAM_BYTES {
                src.pop();
            }
            let _ = (
                validate(&input("x", &src)),
                estimate_nodes(ty, &src),
                mark_revision(&[("x".into(), src.clone())], &[]),
            );
        }
    }
}
