import{r as e,t}from"./chunk-SHT3W25Y-CQzvuese.js";import"./chunk-POPQ4Y6H-2M9B4qe6.js";import"./mermaid.core-BAqdDAt9.js";import"./chunk-F27PBJKO-B3U0LUgW.js";import"./chunk-L3NEJ4N5-BzzEPeIW.js";import"./chunk-OSK3NFVY-CLRNeXzw.js";import"./chunk-GVQU2GXP-BvY5A8Mx.js";import"./chunk-4HAMMTFA-ZE25yVOC.js";import"./chunk-P2QGCYS3-B0-F-MAu.js";import"./chunk-GMAD6QVW-Dm4XxrwD.js";import"./chunk-PWAF6VOD-C8U5Utke.js";import"./chunk-75Z2AOVW-BzGEo_Ve.js";import"./chunk-DU6HZSFF-DznY1n63.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};