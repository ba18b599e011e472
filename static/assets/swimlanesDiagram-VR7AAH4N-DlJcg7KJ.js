import{r as e,t}from"./chunk-SHT3W25Y-BEw2Mk3d.js";import"./chunk-POPQ4Y6H-36zYJG8K.js";import"./mermaid.core-SxmZpYaw.js";import"./chunk-F27PBJKO-Dj7EhBQG.js";import"./chunk-L3NEJ4N5-7Q04bWs-.js";import"./chunk-OSK3NFVY-BV2RqdWU.js";import"./chunk-GVQU2GXP-3pq9ss7-.js";import"./chunk-4HAMMTFA-C4yV3x-x.js";import"./chunk-P2QGCYS3-tI9vZQzD.js";import"./chunk-GMAD6QVW-GezhKI_s.js";import"./chunk-PWAF6VOD-Bun2yszA.js";import"./chunk-75Z2AOVW-hoaDKFy4.js";import"./chunk-DU6HZSFF-CaFyLWXv.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};