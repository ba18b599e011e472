import{r as e,t}from"./chunk-SHT3W25Y-CcDHLF6K.js";import"./chunk-POPQ4Y6H-BHKCE2Nd.js";import"./mermaid.core-Xv4dMtcr.js";import"./chunk-F27PBJKO-C4TOspmO.js";import"./chunk-L3NEJ4N5-BlTlMP1o.js";import"./chunk-OSK3NFVY-ConGGY1x.js";import"./chunk-GVQU2GXP-D-TuzOzu.js";import"./chunk-4HAMMTFA-Cemtu3A_.js";import"./chunk-P2QGCYS3-DRcpczFh.js";import"./chunk-GMAD6QVW-BHzT93ve.js";import"./chunk-PWAF6VOD-BBdr2e5h.js";import"./chunk-75Z2AOVW-CCLlTsiy.js";import"./chunk-DU6HZSFF-DVQBYhJK.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};