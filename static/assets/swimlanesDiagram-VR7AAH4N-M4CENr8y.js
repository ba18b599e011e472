import{r as e,t}from"./chunk-SHT3W25Y-aI3q5WaA.js";import"./chunk-POPQ4Y6H-CH_2Jx7d.js";import"./mermaid.core-B03nAX_E.js";import"./chunk-F27PBJKO-CSYhP2lg.js";import"./chunk-L3NEJ4N5-47RnRijr.js";import"./chunk-OSK3NFVY-D0rjG88z.js";import"./chunk-GVQU2GXP-ClmThSPQ.js";import"./chunk-4HAMMTFA-BiEHa-8_.js";import"./chunk-P2QGCYS3-DpbzFEin.js";import"./chunk-GMAD6QVW-CKjjFrcQ.js";import"./chunk-PWAF6VOD-5IYylYUk.js";import"./chunk-75Z2AOVW-DQX9BWaJ.js";import"./chunk-DU6HZSFF-DZU9Woii.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};