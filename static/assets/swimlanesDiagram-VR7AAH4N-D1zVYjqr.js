import{r as e,t}from"./chunk-SHT3W25Y-aB1uqL4a.js";import"./chunk-POPQ4Y6H-Dlf316i0.js";import"./mermaid.core-C28omwbI.js";import"./chunk-F27PBJKO-BfI9DHTA.js";import"./chunk-L3NEJ4N5-BwmhuuUb.js";import"./chunk-OSK3NFVY-Dfdw5Bkl.js";import"./chunk-GVQU2GXP-Ck7k4jzm.js";import"./chunk-4HAMMTFA-BCRwnIRb.js";import"./chunk-P2QGCYS3-DfNBC6K3.js";import"./chunk-GMAD6QVW-CXYZ_xiB.js";import"./chunk-PWAF6VOD-80hbUEUU.js";import"./chunk-75Z2AOVW-s6ftArO8.js";import"./chunk-DU6HZSFF-19tzuZzw.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};