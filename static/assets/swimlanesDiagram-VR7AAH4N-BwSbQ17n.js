import{r as e,t}from"./chunk-SHT3W25Y-Do9NfSRf.js";import"./chunk-POPQ4Y6H-J-u9n7OH.js";import"./mermaid.core-BFNtDuQG.js";import"./chunk-F27PBJKO-BilCrBJc.js";import"./chunk-L3NEJ4N5-DHx9SaW3.js";import"./chunk-OSK3NFVY-7ZqitOlY.js";import"./chunk-GVQU2GXP-DHTre0ol.js";import"./chunk-4HAMMTFA-DFvZnP8t.js";import"./chunk-P2QGCYS3-BAHeKhdk.js";import"./chunk-GMAD6QVW-C-EYWkKZ.js";import"./chunk-PWAF6VOD-7CwhDViu.js";import"./chunk-75Z2AOVW-DT9PM8xU.js";import"./chunk-DU6HZSFF-B0bT-Szf.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};