import{r as e,t}from"./chunk-SHT3W25Y-CoKJTg2t.js";import"./chunk-POPQ4Y6H-dsvt97GX.js";import"./mermaid.core-Dp-iNxPq.js";import"./chunk-F27PBJKO-S_Hn5rAy.js";import"./chunk-L3NEJ4N5-Dzy3lWZd.js";import"./chunk-OSK3NFVY-CvHhG76Y.js";import"./chunk-GVQU2GXP-CeIOgtt4.js";import"./chunk-4HAMMTFA-Bmbb-r5H.js";import"./chunk-P2QGCYS3-CyBGjc8Y.js";import"./chunk-GMAD6QVW-BqzdyvHM.js";import"./chunk-PWAF6VOD-C-YSLFtY.js";import"./chunk-75Z2AOVW-BcUbUldK.js";import"./chunk-DU6HZSFF-CkSUatEv.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};