import{r as e,t}from"./chunk-SHT3W25Y-Cq7aMoVO.js";import"./chunk-POPQ4Y6H-BCJN3igl.js";import"./mermaid.core-D6rbVJsD.js";import"./chunk-F27PBJKO-DAZmXBJJ.js";import"./chunk-L3NEJ4N5-Cs6oD9kP.js";import"./chunk-OSK3NFVY-Vq3f8dLk.js";import"./chunk-GVQU2GXP-FKn31FSw.js";import"./chunk-4HAMMTFA-D61RPNcd.js";import"./chunk-P2QGCYS3-UpagHS50.js";import"./chunk-GMAD6QVW-BDVCunej.js";import"./chunk-PWAF6VOD-CdkQC8ox.js";import"./chunk-75Z2AOVW-BDq-qvF1.js";import"./chunk-DU6HZSFF-BRbUFB4z.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};