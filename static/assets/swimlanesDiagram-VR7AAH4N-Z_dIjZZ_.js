import{r as e,t}from"./chunk-SHT3W25Y-Bbo4xjBl.js";import"./chunk-POPQ4Y6H-1HvjAwtc.js";import"./mermaid.core-SPWuHKtZ.js";import"./chunk-F27PBJKO-BukuMpXa.js";import"./chunk-L3NEJ4N5-jHwaLM95.js";import"./chunk-OSK3NFVY-CPjnqfb6.js";import"./chunk-GVQU2GXP-DqFNnqJB.js";import"./chunk-4HAMMTFA-qcEPN0pk.js";import"./chunk-P2QGCYS3-BySubCqm.js";import"./chunk-GMAD6QVW-Dw6sUeLI.js";import"./chunk-PWAF6VOD-DyJBVND-.js";import"./chunk-75Z2AOVW-CEeGy99W.js";import"./chunk-DU6HZSFF-BHfuVHml.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};