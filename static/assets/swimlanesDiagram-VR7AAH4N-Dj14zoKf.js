import{r as e,t}from"./chunk-SHT3W25Y-BZ5QcyWh.js";import"./chunk-POPQ4Y6H-CYW91xLl.js";import"./mermaid.core-B-Jz_Aot.js";import"./chunk-F27PBJKO-v2_sfdqC.js";import"./chunk-L3NEJ4N5-Cs8xNpgH.js";import"./chunk-OSK3NFVY-BklJecxs.js";import"./chunk-GVQU2GXP-DwLxveL5.js";import"./chunk-4HAMMTFA-D65tQ-_y.js";import"./chunk-P2QGCYS3-DTFRkKV4.js";import"./chunk-GMAD6QVW-DmDZP8O1.js";import"./chunk-PWAF6VOD-TY8chroT.js";import"./chunk-75Z2AOVW-wxV92Hbx.js";import"./chunk-DU6HZSFF-DDi9e9WT.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};