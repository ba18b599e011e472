import{r as e,t}from"./chunk-SHT3W25Y-tLP5Vhsj.js";import"./chunk-POPQ4Y6H-D34IGnVA.js";import"./mermaid.core-ujAGwVQL.js";import"./chunk-F27PBJKO-BHMT0xwS.js";import"./chunk-L3NEJ4N5-CSc-zbI9.js";import"./chunk-OSK3NFVY-BwiNF4hj.js";import"./chunk-GVQU2GXP-LyTyPvI8.js";import"./chunk-4HAMMTFA-CXlhnvQS.js";import"./chunk-P2QGCYS3-CK5r4N1J.js";import"./chunk-GMAD6QVW-D4nqNuIC.js";import"./chunk-PWAF6VOD-CYpeGp_R.js";import"./chunk-75Z2AOVW-D86tfOwQ.js";import"./chunk-DU6HZSFF-DMzVfQke.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};