import{r as e,t}from"./chunk-SHT3W25Y-CZOUEIU1.js";import"./chunk-POPQ4Y6H-BCUsW0ss.js";import"./mermaid.core-BU6mK3sM.js";import"./chunk-F27PBJKO-BtolrGIQ.js";import"./chunk-L3NEJ4N5-CeCB73lf.js";import"./chunk-OSK3NFVY-ZzNablhQ.js";import"./chunk-GVQU2GXP-C2KBWXGP.js";import"./chunk-4HAMMTFA-GCa79yGB.js";import"./chunk-P2QGCYS3-Dyxb2oHe.js";import"./chunk-GMAD6QVW-VtD9ib-X.js";import"./chunk-PWAF6VOD-DnBVbhMf.js";import"./chunk-75Z2AOVW-BDl1p7OW.js";import"./chunk-DU6HZSFF-Bhg_jP4H.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};