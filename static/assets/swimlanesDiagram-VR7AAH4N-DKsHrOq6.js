import{r as e,t}from"./chunk-SHT3W25Y-CggjijVs.js";import"./chunk-POPQ4Y6H-DHbbYvwr.js";import"./mermaid.core-BbPrTg2f.js";import"./chunk-F27PBJKO-NHIhpXKr.js";import"./chunk-L3NEJ4N5-BWJC2DCi.js";import"./chunk-OSK3NFVY-Dld4GRZr.js";import"./chunk-GVQU2GXP-CX-pe_il.js";import"./chunk-4HAMMTFA-odqmHimK.js";import"./chunk-P2QGCYS3-CFZR9paL.js";import"./chunk-GMAD6QVW-nHDR2Efo.js";import"./chunk-PWAF6VOD-Dje-2kcJ.js";import"./chunk-75Z2AOVW-Bfh3MU05.js";import"./chunk-DU6HZSFF-enGObBF0.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};