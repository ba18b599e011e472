import{r as e,t}from"./chunk-SHT3W25Y-BAOO98no.js";import"./chunk-POPQ4Y6H-tUHjU8j4.js";import"./mermaid.core--SOiMhYD.js";import"./chunk-F27PBJKO-DqnEUvyE.js";import"./chunk-L3NEJ4N5-Cthe1Jmu.js";import"./chunk-OSK3NFVY-BylFZBz2.js";import"./chunk-GVQU2GXP-mGVOrapG.js";import"./chunk-4HAMMTFA-hZLlYtDu.js";import"./chunk-P2QGCYS3-dmhwRIdK.js";import"./chunk-GMAD6QVW-DND0nxNy.js";import"./chunk-PWAF6VOD-BTmTdmcT.js";import"./chunk-75Z2AOVW-BRc6-U2s.js";import"./chunk-DU6HZSFF-D_V-y0ZX.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};