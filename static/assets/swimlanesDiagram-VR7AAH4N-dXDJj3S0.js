import{r as e,t}from"./chunk-SHT3W25Y-s4anF2DQ.js";import"./chunk-POPQ4Y6H-SCqvi8zr.js";import"./mermaid.core-DWu48Wdn.js";import"./chunk-F27PBJKO-DrKp_bbj.js";import"./chunk-L3NEJ4N5-CM6KD69q.js";import"./chunk-OSK3NFVY-CJzbYddZ.js";import"./chunk-GVQU2GXP-DQzSWDVt.js";import"./chunk-4HAMMTFA-Dw8FV90n.js";import"./chunk-P2QGCYS3-CdNnnwE1.js";import"./chunk-GMAD6QVW-CgP1pXnV.js";import"./chunk-PWAF6VOD-Dy7N0bE7.js";import"./chunk-75Z2AOVW-BcxGqrRO.js";import"./chunk-DU6HZSFF-CyIkvKXE.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};