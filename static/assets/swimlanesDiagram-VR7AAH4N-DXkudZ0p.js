import{r as e,t}from"./chunk-SHT3W25Y-B68OeqC4.js";import"./chunk-POPQ4Y6H-Duop_ZK2.js";import"./mermaid.core-DmyBaTQZ.js";import"./chunk-F27PBJKO-je_m5cMR.js";import"./chunk-L3NEJ4N5-CIXm6B2P.js";import"./chunk-OSK3NFVY-BZK4sKRr.js";import"./chunk-GVQU2GXP-CB_PJhsH.js";import"./chunk-4HAMMTFA-DHDTrPD3.js";import"./chunk-P2QGCYS3-U6ioA8AF.js";import"./chunk-GMAD6QVW-D6El4Gtx.js";import"./chunk-PWAF6VOD-sgs3oabj.js";import"./chunk-75Z2AOVW-jU36o6ND.js";import"./chunk-DU6HZSFF-BWM8mmhX.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};