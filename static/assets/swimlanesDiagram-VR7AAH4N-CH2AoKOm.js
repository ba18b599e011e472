import{r as e,t}from"./chunk-SHT3W25Y-_uBGhjVg.js";import"./chunk-POPQ4Y6H-CmZuCdn0.js";import"./mermaid.core-sBmCZiq9.js";import"./chunk-F27PBJKO-D_1FWpm6.js";import"./chunk-L3NEJ4N5-Bm4C9blq.js";import"./chunk-OSK3NFVY-DI-WeXhb.js";import"./chunk-GVQU2GXP-Bz5M4SBP.js";import"./chunk-4HAMMTFA-CU2I6M8g.js";import"./chunk-P2QGCYS3-CzNOrU1T.js";import"./chunk-GMAD6QVW-D4Tjo8qt.js";import"./chunk-PWAF6VOD-YIwO87Ow.js";import"./chunk-75Z2AOVW-B6zmLuDd.js";import"./chunk-DU6HZSFF-owNzzkmr.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};