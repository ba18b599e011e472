import{r as e,t}from"./chunk-SHT3W25Y-BA_PCxgH.js";import"./chunk-POPQ4Y6H-D_O7nmdq.js";import"./mermaid.core-ZadF7Gow.js";import"./chunk-F27PBJKO-BhDZLIN4.js";import"./chunk-L3NEJ4N5-C-56y7UR.js";import"./chunk-OSK3NFVY-DVLYEfIg.js";import"./chunk-GVQU2GXP-DBfsqWG0.js";import"./chunk-4HAMMTFA-BjYjkQDE.js";import"./chunk-P2QGCYS3-E7V6p6-n.js";import"./chunk-GMAD6QVW-CJ9XIe0x.js";import"./chunk-PWAF6VOD-vGOU7JYu.js";import"./chunk-75Z2AOVW-Cn55_CiQ.js";import"./chunk-DU6HZSFF-BWOkkadx.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};