import{r as e,t}from"./chunk-SHT3W25Y-D9Nm3zxD.js";import"./chunk-POPQ4Y6H-CSnCQq1E.js";import"./mermaid.core-BXnKuzBh.js";import"./chunk-F27PBJKO-B8oEmcu0.js";import"./chunk-L3NEJ4N5-CJHS_1K3.js";import"./chunk-OSK3NFVY-T9zLeCNe.js";import"./chunk-GVQU2GXP-CEUBiOb6.js";import"./chunk-4HAMMTFA-DxZV1Mdp.js";import"./chunk-P2QGCYS3-dz7L1wum.js";import"./chunk-GMAD6QVW-MQSbEbDT.js";import"./chunk-PWAF6VOD-BUpRhHQH.js";import"./chunk-75Z2AOVW-BI45MzYD.js";import"./chunk-DU6HZSFF-CqhLYUNn.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};