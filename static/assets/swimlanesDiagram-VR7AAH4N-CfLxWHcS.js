import{r as e,t}from"./chunk-SHT3W25Y-BDOBmEYu.js";import"./chunk-POPQ4Y6H-DtVi44-R.js";import"./mermaid.core-BRj2bHfa.js";import"./chunk-F27PBJKO-Dqapz6Ma.js";import"./chunk-L3NEJ4N5-DQ1zSKgY.js";import"./chunk-OSK3NFVY-YPIojIkF.js";import"./chunk-GVQU2GXP-DLwR_Sht.js";import"./chunk-4HAMMTFA-C2NN1Qn_.js";import"./chunk-P2QGCYS3-D0XRcHBh.js";import"./chunk-GMAD6QVW-D3KTJ8Ta.js";import"./chunk-PWAF6VOD-3u_lesMe.js";import"./chunk-75Z2AOVW-hwqZ3xG4.js";import"./chunk-DU6HZSFF-CVPEDSqE.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};