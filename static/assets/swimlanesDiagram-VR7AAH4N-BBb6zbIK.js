import{r as e,t}from"./chunk-SHT3W25Y-DfDFd5QE.js";import"./chunk-POPQ4Y6H-DYbJeAp2.js";import"./mermaid.core-C6G0qrL_.js";import"./chunk-F27PBJKO-BaVDf-ST.js";import"./chunk-L3NEJ4N5-DBExFNtN.js";import"./chunk-OSK3NFVY-CfKkH8m2.js";import"./chunk-GVQU2GXP-CPEPaQoo.js";import"./chunk-4HAMMTFA-Dg3xpUyg.js";import"./chunk-P2QGCYS3-aZkwn6Mz.js";import"./chunk-GMAD6QVW-DRzNhtxk.js";import"./chunk-PWAF6VOD-DMq5CyMZ.js";import"./chunk-75Z2AOVW-DQ3pnipp.js";import"./chunk-DU6HZSFF-D13MheZx.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};