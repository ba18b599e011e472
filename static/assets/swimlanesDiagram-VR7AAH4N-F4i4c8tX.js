import{r as e,t}from"./chunk-SHT3W25Y-im13XQ1p.js";import"./chunk-POPQ4Y6H-Dte5M2xk.js";import"./mermaid.core-CqYQEya6.js";import"./chunk-F27PBJKO-COsZnh56.js";import"./chunk-L3NEJ4N5-CJOkX-aH.js";import"./chunk-OSK3NFVY-Bj4DBe8Q.js";import"./chunk-GVQU2GXP-C78W1BDO.js";import"./chunk-4HAMMTFA-DMXe3DR1.js";import"./chunk-P2QGCYS3-xh5lTNgJ.js";import"./chunk-GMAD6QVW-DZwYfvWr.js";import"./chunk-PWAF6VOD-sulnjrPH.js";import"./chunk-75Z2AOVW-C8-JzTVr.js";import"./chunk-DU6HZSFF-BblxYxme.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};