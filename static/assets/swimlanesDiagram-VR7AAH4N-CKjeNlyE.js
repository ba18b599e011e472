import{r as e,t}from"./chunk-SHT3W25Y-plc8Yhjx.js";import"./chunk-POPQ4Y6H-Cr3AylED.js";import"./mermaid.core-joK_XUgA.js";import"./chunk-F27PBJKO-DGDtD0Tv.js";import"./chunk-L3NEJ4N5-Dt0JhFYN.js";import"./chunk-OSK3NFVY-CZQBeVuG.js";import"./chunk-GVQU2GXP-B-8Wd5LO.js";import"./chunk-4HAMMTFA-BsOLFE7G.js";import"./chunk-P2QGCYS3-D0fCq6FE.js";import"./chunk-GMAD6QVW-CHP9byTf.js";import"./chunk-PWAF6VOD-BO2eAVPn.js";import"./chunk-75Z2AOVW-CcUxNYiu.js";import"./chunk-DU6HZSFF-jtxa0MOq.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};