import{r as e,t}from"./chunk-SHT3W25Y-bFDHZiEF.js";import"./chunk-POPQ4Y6H-CEcwhkOT.js";import"./mermaid.core-CgPgev6v.js";import"./chunk-F27PBJKO-B3r34pdX.js";import"./chunk-L3NEJ4N5-BRdQMXCb.js";import"./chunk-OSK3NFVY-CsX-8dpt.js";import"./chunk-GVQU2GXP-BMFU74oa.js";import"./chunk-4HAMMTFA-C4kUQ0Kb.js";import"./chunk-P2QGCYS3-DnvK9UAm.js";import"./chunk-GMAD6QVW-QCJ8HEe9.js";import"./chunk-PWAF6VOD-CJz_LAIo.js";import"./chunk-75Z2AOVW-Djm6sx6d.js";import"./chunk-DU6HZSFF-Ccp3b_4Q.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};