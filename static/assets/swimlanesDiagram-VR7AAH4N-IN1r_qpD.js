import{r as e,t}from"./chunk-SHT3W25Y-ymCNUE_K.js";import"./chunk-POPQ4Y6H-D9uvUvQY.js";import"./mermaid.core-ClZHEIiB.js";import"./chunk-F27PBJKO-kuY8A7be.js";import"./chunk-L3NEJ4N5-DkqPpcQG.js";import"./chunk-OSK3NFVY-Cciojtgx.js";import"./chunk-GVQU2GXP-D8tOgxFg.js";import"./chunk-4HAMMTFA-Bln2Z3eS.js";import"./chunk-P2QGCYS3-Dd8_aBeC.js";import"./chunk-GMAD6QVW-C2AQp0hg.js";import"./chunk-PWAF6VOD-DuA1zqir.js";import"./chunk-75Z2AOVW-BWH5v08T.js";import"./chunk-DU6HZSFF-D3EGf33C.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};