import{r as e,t}from"./chunk-SHT3W25Y-CH7QspC-.js";import"./chunk-POPQ4Y6H-DOkxb16H.js";import"./mermaid.core-D1hqm6Kc.js";import"./chunk-F27PBJKO-CzN2jGM3.js";import"./chunk-L3NEJ4N5-DJSwFl38.js";import"./chunk-OSK3NFVY-DsN6Lzjx.js";import"./chunk-GVQU2GXP-CWPvkdXR.js";import"./chunk-4HAMMTFA-31TaNxcj.js";import"./chunk-P2QGCYS3-C6YCZaIS.js";import"./chunk-GMAD6QVW-Ck-ivV9F.js";import"./chunk-PWAF6VOD-CQLYnFR8.js";import"./chunk-75Z2AOVW-MSjZolGQ.js";import"./chunk-DU6HZSFF-Cx2ySCGJ.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};