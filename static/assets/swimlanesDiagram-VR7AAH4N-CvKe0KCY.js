import{r as e,t}from"./chunk-SHT3W25Y-Bq84a2Ij.js";import"./chunk-POPQ4Y6H-CNC0YqRS.js";import"./mermaid.core-DOSJagQH.js";import"./chunk-F27PBJKO-5v-KM1Y2.js";import"./chunk-L3NEJ4N5-DGQFnl_N.js";import"./chunk-OSK3NFVY-D1kDL-_8.js";import"./chunk-GVQU2GXP-DlmDLZ24.js";import"./chunk-4HAMMTFA-CC6eKs1A.js";import"./chunk-P2QGCYS3-C38Jd0RG.js";import"./chunk-GMAD6QVW-tuG0_jOr.js";import"./chunk-PWAF6VOD-3Nv5ioAs.js";import"./chunk-75Z2AOVW-ChfhFhOI.js";import"./chunk-DU6HZSFF-DIVwXHFW.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};