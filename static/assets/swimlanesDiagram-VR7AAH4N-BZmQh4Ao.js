import{r as e,t}from"./chunk-SHT3W25Y-vejweQSW.js";import"./chunk-POPQ4Y6H-DOy3tdU4.js";import"./mermaid.core-BfxnGvSS.js";import"./chunk-F27PBJKO-CAYGC3UE.js";import"./chunk-L3NEJ4N5-BqqVPKDx.js";import"./chunk-OSK3NFVY-CMTA0Ftq.js";import"./chunk-GVQU2GXP-BfgF5S9c.js";import"./chunk-4HAMMTFA-DhuNFmMR.js";import"./chunk-P2QGCYS3-RXvl3ncR.js";import"./chunk-GMAD6QVW-CucPTziV.js";import"./chunk-PWAF6VOD-vcoZ6ZHf.js";import"./chunk-75Z2AOVW-D3d6gZu3.js";import"./chunk-DU6HZSFF-DaspkcQM.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};