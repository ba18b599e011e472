import{r as e,t}from"./chunk-SHT3W25Y-B4njKOAN.js";import"./chunk-POPQ4Y6H-BkTNJsUr.js";import"./mermaid.core-Bddlph6n.js";import"./chunk-F27PBJKO-Cjev-0pc.js";import"./chunk-L3NEJ4N5-BKr959Un.js";import"./chunk-OSK3NFVY-BNFwqScg.js";import"./chunk-GVQU2GXP-gA4NdovF.js";import"./chunk-4HAMMTFA-BpQ3b_10.js";import"./chunk-P2QGCYS3-foco6qdU.js";import"./chunk-GMAD6QVW-2q19KbZn.js";import"./chunk-PWAF6VOD-CJbDHjN7.js";import"./chunk-75Z2AOVW-vly4Jjvd.js";import"./chunk-DU6HZSFF-D0QFMXZF.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};