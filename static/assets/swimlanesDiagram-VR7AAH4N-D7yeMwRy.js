import{r as e,t}from"./chunk-SHT3W25Y-CahtyMQr.js";import"./chunk-POPQ4Y6H-BIc0nBmZ.js";import"./mermaid.core-Dr6232S0.js";import"./chunk-F27PBJKO-DHjLaAt4.js";import"./chunk-L3NEJ4N5-riE_7I6I.js";import"./chunk-OSK3NFVY-DiYkWnNM.js";import"./chunk-GVQU2GXP-DH6ZRWJ-.js";import"./chunk-4HAMMTFA-DvHxTJWY.js";import"./chunk-P2QGCYS3-Bp0kXETT.js";import"./chunk-GMAD6QVW-CKRFR0tY.js";import"./chunk-PWAF6VOD-B_-XjqVc.js";import"./chunk-75Z2AOVW-BvmFVu17.js";import"./chunk-DU6HZSFF-D3aidOQX.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};