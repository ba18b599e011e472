import{r as e,t}from"./chunk-SHT3W25Y-BMM11x3J.js";import"./chunk-POPQ4Y6H-CnvRhm4A.js";import"./mermaid.core-C-ChqDQe.js";import"./chunk-F27PBJKO-B7OwbAY-.js";import"./chunk-L3NEJ4N5-BqzMUpwS.js";import"./chunk-OSK3NFVY-D-1AAUfJ.js";import"./chunk-GVQU2GXP-BNP-xm1P.js";import"./chunk-4HAMMTFA-F7J26qol.js";import"./chunk-P2QGCYS3-BHJ2RPff.js";import"./chunk-GMAD6QVW-BJy5qRDK.js";import"./chunk-PWAF6VOD-gGKQ_enr.js";import"./chunk-75Z2AOVW-D139i229.js";import"./chunk-DU6HZSFF-CF85uf35.js";import"./d3-selection-CQOeqU2O.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};