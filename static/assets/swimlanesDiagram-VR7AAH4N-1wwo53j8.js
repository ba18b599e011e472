import{r as e,t}from"./chunk-SHT3W25Y-DiodEnmV.js";import"./chunk-POPQ4Y6H-C5tLVvnr.js";import"./mermaid.core-DsGZ8i8o.js";import"./chunk-F27PBJKO-zw8_ESS4.js";import"./chunk-L3NEJ4N5-CIjkUH6g.js";import"./chunk-OSK3NFVY-D53CJhev.js";import"./chunk-GVQU2GXP-vUBK3XFg.js";import"./chunk-4HAMMTFA-cwv1Vjqv.js";import"./chunk-P2QGCYS3-zWrez50d.js";import"./chunk-GMAD6QVW-4i7YGed_.js";import"./chunk-PWAF6VOD-DfqgJcTK.js";import"./chunk-75Z2AOVW-C9tIx3Rf.js";import"./chunk-DU6HZSFF-DCfGi832.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};