import{r as e,t}from"./chunk-SHT3W25Y-Cq7ypR2T.js";import"./chunk-POPQ4Y6H-DUpyugG2.js";import"./mermaid.core-CIbPfP7f.js";import"./chunk-F27PBJKO-DHEBcp68.js";import"./chunk-L3NEJ4N5-HebiAb1m.js";import"./chunk-OSK3NFVY-CGGBNE31.js";import"./chunk-GVQU2GXP-BN-UIp6a.js";import"./chunk-4HAMMTFA-CrIuMzQD.js";import"./chunk-P2QGCYS3-CXg7okch.js";import"./chunk-GMAD6QVW-D0eda1Bd.js";import"./chunk-PWAF6VOD-Bq0-fpzf.js";import"./chunk-75Z2AOVW-B3_5FmTy.js";import"./chunk-DU6HZSFF-DxbWKagE.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};